import { describe, expect, it } from "vitest";
import { Chat } from "@agentry/chat-sdk";
import { typingText } from "./views";
import { actionText } from "./bubble/ActionMessage";
import { builtInSound } from "./sound";

const u = (name: string) => new Chat.User(name.toLowerCase(), name);

describe("typingText", () => {
  it.each([
    [[], ""],
    [["Alice"], "Alice is typing…"],
    [["Alice", "Bob"], "Alice and Bob are typing…"],
    [["Alice", "Bob", "Carol"], "Alice, Bob and 1 other are typing…"],
    [["Alice", "Bob", "Carol", "Dan"], "Alice, Bob and 2 others are typing…"],
  ])("%j → %s", (names, want) => expect(typingText(names.map(u))).toBe(want));
});

describe("actionText", () => {
  const a = (action: string, by: string, on: string, scope?: "admin") => {
    const x = new Chat.Action("g", action);
    x.setActionBy(u(by));
    x.setActionOn(u(on));
    if (scope) x.setNewScope(scope);
    return x;
  };
  it("tells membership changes with names, the reader as You", () => {
    expect(actionText(a("kicked", "Alice", "Bob"), "carol")).toBe("Alice removed Bob");
    expect(actionText(a("scopeChanged", "Alice", "Carol", "admin"), "carol")).toBe("Alice made You admin");
    expect(actionText(a("left", "Bob", "Bob"), "carol")).toBe("Bob left");
  });
});

describe("builtInSound", () => {
  it("is a small WAV data URI", () => {
    const s = builtInSound();
    expect(s.startsWith("data:audio/wav;base64,UklGR")).toBe(true);
    expect(s.length).toBeLessThan(1200);
  });
});
