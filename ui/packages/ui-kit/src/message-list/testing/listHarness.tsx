// The ChatMessageList tests' shared set-up, over the fake Chat (../fakeChat.ts). Each test file
// mocks the SDK with it first:
//
//   vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).mockChatSDK(io));
import { cleanup, render, waitFor } from "@testing-library/react";
import type { ReactElement } from "react";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { Chat } from "@agentry/chat-sdk";
import { fake, makeMessages } from "../fakeChat";

/** Stored messages (the fake's makeMessages), fresh for each test. */
export const mk = {} as ReturnType<typeof makeMessages>;
export const bob = () => new Chat.User("bob", "Bob");
export const kitchen = () => new Chat.Group("kitchen", "Kitchen", "public");
export const bubbles = (container: HTMLElement) => [...container.querySelectorAll(".chat-message-bubble")];
export const texts = (container: HTMLElement) => [...container.querySelectorAll(".chat-text-bubble__text")].map((e) => e.textContent);

/** Alice signed in on an empty fake for each test; everything rendered is unmounted after it. */
export function useFakeList(): void {
  beforeEach(() => {
    fake().reset();
    fake().me = new Chat.User("alice", "Alice");
    Object.assign(mk, makeMessages(fake().real));
    URL.createObjectURL = vi.fn(() => "blob:fake");
    URL.revokeObjectURL = vi.fn();
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });
}

/** Renders and waits until the first page is shown (or a state view replaced the loader). */
export async function show(ui: ReactElement) {
  const r = render(ui);
  await waitFor(() => expect(r.container.querySelector(".chat-message-list__shimmer")).toBeNull());
  return r;
}
