import { fireEvent, render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { Avatar, initials } from "./Avatar";

describe("Avatar", () => {
  it.each([
    ["Ada Lovelace", "AL"],
    ["  grace   brewster  hopper ", "GH"],
    ["émile", "É"],
    ["", "?"],
  ])("initials(%j) = %s", (name, want) => expect(initials(name)).toBe(want));

  it("falls back to initials when the image fails", () => {
    const { container } = render(<Avatar name="Bob Dylan" image="http://127.0.0.1:1/none.png" />);
    const img = container.querySelector("img")!;
    expect(img).not.toBeNull();
    fireEvent.error(img);
    expect(container.querySelector("img")).toBeNull();
    expect(container.textContent).toBe("BD");
  });

  it("shows an emoji as it is, and a presence dot when told", () => {
    const { container } = render(<Avatar name="Chef" image="🍳" online={false} />);
    expect([container.querySelector("img"), container.textContent]).toEqual([null, "🍳"]);
    expect(container.querySelector(".chat-avatar__presence--offline")).not.toBeNull();
  });
});
