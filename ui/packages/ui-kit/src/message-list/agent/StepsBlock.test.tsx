import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentic } from "../testing/fixtures";
import { StepsBlock } from "./StepsBlock";
import { stepsOf } from "./steps";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

afterEach(cleanup);

describe("StepsBlock", () => {
  it("a step whose message came with reasoning keeps it, folded inside the opened list", () => {
    const called = agentic({
      id: 1,
      toolCalls: [{ id: "c1", name: "weather", arguments: "{}" }, { id: "c2", name: "convert-units", arguments: "{}" }],
      data: { reasoning: { text: "I need the weather first.", durationMs: 2_000 } },
    });
    const result = agentic({ id: 2, type: "tool_result", data: { toolCallId: "c1", name: "weather", result: "{}" } });
    const steps = stepsOf([called, result]);
    expect(steps.map((s) => [s.id, s.reasoning?.text])).toEqual([["c1", "I need the weather first."], ["c2", undefined]]);
    render(<StepsBlock steps={steps} lastId={2} agentName="Chef" noReply={false} />);
    fireEvent.click(screen.getByRole("button", { name: /Used 2 tools/ }));
    const first = screen.getAllByRole("listitem")[0]!;
    const toggle = within(first).getByRole("button", { name: "Thought for 2 s" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    expect(within(first).getByText("I need the weather first.")).toBeTruthy();
    expect(within(screen.getAllByRole("listitem")[1]!).queryByRole("button")).toBeNull();
  });
});
