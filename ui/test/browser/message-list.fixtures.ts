// Shared set-up of the ChatMessageList browser tests: fresh users per test (so conversations do
// not leak between tests), messages sent through the REST API as a second user, and
// measurements of the list's scroll position in the page.
import type { Page } from "playwright-core";
import type { ChatProcess } from "../agentry.mjs";

export interface Person {
  uid: string;
  name: string;
  token: string;
}

let n = 0;

/** Creates users named like the keys ("alice" → uid alice-<n>, name Alice) with tokens. */
export async function people<K extends string>(chat: ChatProcess, names: K[]): Promise<Record<K, Person>> {
  n++;
  const out = {} as Record<K, Person>;
  for (const key of names) {
    const uid = `${key}-${n}`;
    const name = key[0]!.toUpperCase() + key.slice(1);
    await chat.createUser(uid, name);
    out[key] = { uid, name, token: await chat.mintToken(uid) };
  }
  return out;
}

export interface WireMessage {
  id: number;
  text?: string;
  sentAt: string;
  replyCount?: number;
  readAt?: string;
  deliveredAt?: string;
}

/** Sends a text message as `from` (to a user, or a group with group: true). */
export function send(chat: ChatProcess, from: Person, to: string, text: string, o: { group?: boolean; parentId?: number } = {}): Promise<WireMessage> {
  return chat.call("POST", "/messages", { receiver: to, receiverType: o.group ? "group" : "user", text, ...(o.parentId ? { parentId: o.parentId } : {}) }, from.token);
}

/** Sends count messages alternating between a and b ("<prefix> 1" … "<prefix> count"). */
export async function conversation(chat: ChatProcess, a: Person, b: Person, count: number, prefix = "m"): Promise<WireMessage[]> {
  const out: WireMessage[] = [];
  for (let i = 1; i <= count; i++) {
    const [from, to] = i % 3 === 0 ? [b, a] : [a, b];
    out.push(await send(chat, from, to.uid, `${prefix} ${i}`));
  }
  return out;
}

export const LIST = ".chat-message-list__list";

/** The first message (at least partly) in view: its id and its top relative to the list's top. */
export function firstVisible(page: Page): Promise<{ id: number; offset: number; count: number }> {
  return page.evaluate((sel) => {
    const s = document.querySelector<HTMLElement>(sel)!;
    const top = s.getBoundingClientRect().top;
    const els = [...s.querySelectorAll<HTMLElement>("[data-message-id]")];
    const el = els.find((e) => e.getBoundingClientRect().bottom > top + 0.5)!;
    return { id: Number(el.dataset["messageId"]), offset: el.getBoundingClientRect().top - top, count: els.length };
  }, LIST);
}

/** How far the list is from its bottom (px). */
export function gapToBottom(page: Page): Promise<number> {
  return page.evaluate((sel) => {
    const s = document.querySelector<HTMLElement>(sel)!;
    return s.scrollHeight - s.clientHeight - s.scrollTop;
  }, LIST);
}

/** The texts of the text bubbles in order. */
export function texts(page: Page): Promise<string[]> {
  return page.locator(".chat-text-bubble__text").allTextContents();
}

/** Whether an element is inside the list's visible area. */
export function inView(page: Page, selector: string): Promise<boolean> {
  return page.evaluate(
    ([sel, list]) => {
      const s = document.querySelector<HTMLElement>(list)!.getBoundingClientRect();
      const r = document.querySelector<HTMLElement>(sel)?.getBoundingClientRect();
      return !!r && r.bottom > s.top && r.top < s.bottom;
    },
    [selector, LIST] as const,
  );
}

/** A public group created by owner, with the others joined. */
export async function group(chat: ChatProcess, guid: string, name: string, owner: Person, others: Person[]): Promise<void> {
  await chat.call("POST", "/groups", { guid, name, type: "public" }, owner.token);
  for (const p of others) await chat.call("POST", `/groups/${guid}/join`, {}, p.token);
}

/** The list's article of the message with this text. */
export const article = (page: Page, text: string) => page.locator("article.chat-message-list__message", { hasText: text });
