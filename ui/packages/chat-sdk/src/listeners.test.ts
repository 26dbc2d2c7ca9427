import { describe, expect, test, vi } from "vitest";
import { ListenerSet, MessageListener, type MessageListenerCallbacks } from "./listeners";
import { TextMessage } from "./models/message";

describe("ListenerSet", () => {
  test("adding an id again replaces its listener (effects that run twice leave one)", () => {
    const set = new ListenerSet<MessageListenerCallbacks>();
    const first = vi.fn();
    const second = vi.fn();
    set.set("list", new MessageListener({ onTextMessageReceived: first }));
    set.set("list", new MessageListener({ onTextMessageReceived: second }));
    set.emit("onTextMessageReceived", new TextMessage("u", "x", "user"));
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
    expect(set.size).toBe(1);
    set.delete("list");
    set.emit("onTextMessageReceived", new TextMessage("u", "x", "user"));
    expect(second).toHaveBeenCalledTimes(1);
  });

  test("a listener that throws does not stop the others", () => {
    const set = new ListenerSet<MessageListenerCallbacks>();
    const ok = vi.fn();
    const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
    set.set("a", { onTextMessageReceived: () => { throw new Error("boom"); } });
    set.set("b", { onTextMessageReceived: ok });
    set.emit("onTextMessageReceived", new TextMessage("u", "x", "user"));
    expect(ok).toHaveBeenCalledTimes(1);
    expect(err).toHaveBeenCalled();
    err.mockRestore();
  });

  test("listeners keep their this (class instances with methods)", () => {
    class Counter {
      n = 0;
      onTextMessageReceived(): void {
        this.n++;
      }
    }
    const c = new Counter();
    const set = new ListenerSet<MessageListenerCallbacks>();
    set.set("c", c);
    set.emit("onTextMessageReceived", new TextMessage("u", "x", "user"));
    expect(c.n).toBe(1);
  });
});
