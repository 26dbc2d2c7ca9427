import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Chat } from "@agentry/chat-sdk";
import { describe, expect, it } from "vitest";
import { defaultTextFormatters } from "./formatters";
import { TextContent } from "./TextContent";

const m = new Chat.TextMessage("bob", "", "user");

describe("TextContent", () => {
  it("collapses a long message behind Show more, and opens it", async () => {
    const long = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
    const { container } = render(<TextContent message={m} text={long} formatters={defaultTextFormatters} />);
    const more = screen.getByRole("button", { name: "Show more" });
    expect(more.getAttribute("aria-expanded")).toBe("false");
    expect(container.querySelector(".chat-text-bubble__text--collapsed")).not.toBeNull();
    await userEvent.click(more);
    expect(screen.getByRole("button", { name: "Show less" }).getAttribute("aria-expanded")).toBe("true");
    expect(container.querySelector(".chat-text-bubble__text--collapsed")).toBeNull();
  });
  it("leaves a short message alone", () => {
    const { container } = render(<TextContent message={m} text={"a short one\nwith two lines"} formatters={defaultTextFormatters} />);
    expect(within(container).queryByRole("button")).toBeNull();
  });
});
