// ChatGroups: loading and paging, search, selection, activation and keyboard (views, errors,
// actions, UI events and clean-up are in views.test.tsx).
import { Chat } from "@agentry/chat-sdk";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ChatGroupEvents } from "../events";
import { SelectionMode } from "../types";
import { ChatGroups } from "./ChatGroups";
import { FakeIntersectionObserver, mount, names, options, useGroupsService } from "./testing";

const t = useGroupsService();

describe("ChatGroups: loading and paging", () => {
  it("loads 30 groups per page by default, with header, labelled search and listbox", async () => {
    const { container } = await mount();
    expect(t.svc.listCalls[0]?.get("limit")).toBe("30");
    expect(container.querySelector(".chat-groups")).not.toBeNull();
    expect(screen.getByRole("heading", { name: "Groups" }).className).toBe("chat-list__header-title");
    expect(screen.getByRole("searchbox", { name: "Search groups" }).className).toBe("chat-search-bar__input");
    const list = screen.getByRole("listbox", { name: "Groups" });
    expect(list.getAttribute("aria-multiselectable")).toBeNull();
    expect(names().slice(0, 2)).toEqual(["Group 001", "Group 002"]);
    expect(within(options()[0]!).getByText("1 member")).toHaveProperty("className", "chat-groups__subtitle");
    expect(within(options()[1]!).getByText("2 members")).toBeTruthy();
    const row = container.querySelector(".chat-groups__list-item")!;
    for (const sel of [".chat-list-item", ".chat-list-item__leading-view", ".chat-avatar", ".chat-list-item__body-title", ".chat-groups__subtitle"]) {
      expect(row.querySelector(sel), sel).not.toBeNull();
    }
  });

  it("loads the next page when the bottom sentinel comes into view, until none is left", async () => {
    await mount();
    await waitFor(() => expect(FakeIntersectionObserver.live()).toBe(1)); // observed in a passive effect, after the rows
    act(() => FakeIntersectionObserver.intersect());
    await waitFor(() => expect(options()).toHaveLength(60));
    act(() => FakeIntersectionObserver.intersect());
    await waitFor(() => expect(options()).toHaveLength(75));
    const calls = t.svc.listCalls.length;
    act(() => FakeIntersectionObserver.intersect());
    await new Promise((r) => setTimeout(r, 30));
    expect(t.svc.listCalls.length).toBe(calls);
    expect(new Set(names()).size).toBe(75);
  });

  it("keeps loading while the list does not fill its viewport (no sentinel event needed), then stops", async () => {
    // The scroller is `height` px high; each row 56 px.
    let height = 2000;
    vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(function (this: HTMLElement) {
      return this.classList.contains("chat-groups__list-container") ? height : 0;
    });
    vi.spyOn(HTMLElement.prototype, "scrollHeight", "get").mockImplementation(function (this: HTMLElement) {
      return this.querySelectorAll("[role=option]").length * 56;
    });
    const { unmount } = render(<ChatGroups />);
    // 30 rows (1680 px) do not fill 2000 px: a second page; 60 rows do.
    await waitFor(() => expect(options()).toHaveLength(60));
    await new Promise((r) => setTimeout(r, 30));
    expect(t.svc.listCalls).toHaveLength(2);
    unmount();
    height = 5000; // taller than all 75
    render(<ChatGroups />);
    await waitFor(() => expect(options()).toHaveLength(75));
    expect(t.svc.listCalls).toHaveLength(5);
  });

  it("does not change the caller's builder, and reloads only when its settings change", async () => {
    const b = new Chat.GroupsRequestBuilder().setLimit(10);
    const { rerender } = await mount({ groupsRequestBuilder: b }, 10);
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "Group 00" } });
    await waitFor(() => expect(t.svc.listCalls.at(-1)?.get("searchKeyword")).toBe("Group 00"));
    expect(b.searchKeyword).toBe("");
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "" } });
    await waitFor(() => expect(options()).toHaveLength(10));
    const calls = t.svc.listCalls.length;
    rerender(<ChatGroups groupsRequestBuilder={new Chat.GroupsRequestBuilder().setLimit(10)} />);
    await new Promise((r) => setTimeout(r, 30));
    expect(t.svc.listCalls.length).toBe(calls);
    rerender(<ChatGroups groupsRequestBuilder={new Chat.GroupsRequestBuilder().setLimit(5)} />);
    await waitFor(() => expect(options()).toHaveLength(5));
  });
});

describe("ChatGroups: search", () => {
  it("debounces, replaces the list with the results, and restores it when cleared", async () => {
    await mount();
    const calls = t.svc.listCalls.length;
    const box = screen.getByRole("searchbox");
    fireEvent.change(box, { target: { value: "0" } });
    fireEvent.change(box, { target: { value: "07" } });
    await new Promise((r) => setTimeout(r, 150));
    expect(t.svc.listCalls.length).toBe(calls); // still typing
    await waitFor(() => expect(names()).toEqual(["Group 007", "Group 070", "Group 071", "Group 072", "Group 073", "Group 074", "Group 075"]));
    expect(t.svc.listCalls.length).toBe(calls + 1);
    expect(t.svc.listCalls.at(-1)?.get("searchKeyword")).toBe("07");
    fireEvent.change(box, { target: { value: "" } });
    await waitFor(() => expect(options()).toHaveLength(30));
    expect(names()[0]).toBe("Group 001");
  });

  it("uses searchRequestBuilder while searching; an older search's answer is dropped", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    t.svc.hold = (url) => (url.searchParams.get("searchKeyword") === "Group 01" ? held : undefined);
    await mount({ searchRequestBuilder: new Chat.GroupsRequestBuilder().setLimit(3) });
    const box = screen.getByRole("searchbox");
    fireEvent.change(box, { target: { value: "Group 01" } });
    await waitFor(() => expect(t.svc.listCalls.at(-1)?.get("searchKeyword")).toBe("Group 01"));
    expect(t.svc.listCalls.at(-1)?.get("limit")).toBe("3");
    fireEvent.change(box, { target: { value: "Group 02" } });
    await waitFor(() => expect(names()).toEqual(["Group 020", "Group 021", "Group 022"]));
    release();
    await new Promise((r) => setTimeout(r, 30));
    expect(names()).toEqual(["Group 020", "Group 021", "Group 022"]);
  });

  it("shows the empty state when nothing matches", async () => {
    await mount();
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "nothing like it" } });
    const empty = await screen.findByText("No groups found");
    expect(empty.className).toBe("chat-groups__empty-state-view-body-title");
    expect(document.querySelector(".chat-groups__empty-state-view-body-description")).not.toBeNull();
  });
});

describe("ChatGroups: selection, activation, keyboard", () => {
  it("single: Space checks one row at a time (radio), onSelect tells both rows", async () => {
    const onSelect = vi.fn<(g: Chat.Group, on: boolean) => void>();
    await mount({ selectionMode: SelectionMode.single, onSelect });
    const [a, b] = options();
    a!.focus();
    fireEvent.keyDown(a!, { key: " " });
    expect(a!.getAttribute("aria-checked")).toBe("true");
    expect(a!.getAttribute("aria-selected")).toBe("true");
    fireEvent.click(b!.querySelector(".chat-groups__selection--radio")!);
    expect([a!.getAttribute("aria-checked"), b!.getAttribute("aria-checked")]).toEqual(["false", "true"]);
    fireEvent.keyDown(b!, { key: " " }); // a radio stays checked
    expect(onSelect.mock.calls.map(([g, on]) => [g.getGuid(), on])).toEqual([["g001", true], ["g001", false], ["g002", true]]);
  });

  it("multiple: check boxes, aria-multiselectable, toggling both ways", async () => {
    const onSelect = vi.fn<(g: Chat.Group, on: boolean) => void>();
    const onItemClick = vi.fn();
    await mount({ selectionMode: SelectionMode.multiple, onSelect, onItemClick });
    expect(screen.getByRole("listbox").getAttribute("aria-multiselectable")).toBe("true");
    const [a, b] = options();
    fireEvent.click(a!.querySelector(".chat-groups__selection--checkbox")!);
    fireEvent.keyDown(b!, { key: " " });
    fireEvent.click(a!.querySelector(".chat-groups__selection--checkbox")!);
    expect([a!.getAttribute("aria-checked"), b!.getAttribute("aria-checked")]).toEqual(["false", "true"]);
    expect(b!.closest("li")!.className).toContain("chat-groups__list-item-selected");
    expect(onSelect.mock.calls.map(([g, on]) => [g.getGuid(), on])).toEqual([["g001", true], ["g002", true], ["g001", false]]);
    expect(onItemClick).not.toHaveBeenCalled();
  });

  it("highlights activeGroup by guid (any object with that guid)", async () => {
    const active = new Chat.Group("g003", "whatever");
    const { container } = await mount({ activeGroup: active });
    const li = container.querySelector(".chat-groups__list-item-active");
    expect(li?.getAttribute("data-guid")).toBe("g003");
    expect(li?.querySelector("[role=option]")?.getAttribute("aria-selected")).toBe("true");
    expect(options()[0]!.getAttribute("aria-selected")).toBe("false");
    expect(li?.querySelector("[role=option]")?.getAttribute("tabindex")).toBe("0"); // the Tab stop
  });

  it("onItemClick on click and Enter; no selection state without a selection mode", async () => {
    const onItemClick = vi.fn<(g: Chat.Group) => void>();
    await mount({ onItemClick });
    fireEvent.click(options()[4]!);
    fireEvent.keyDown(options()[5]!, { key: "Enter" });
    fireEvent.keyDown(options()[6]!, { key: " " });
    expect(onItemClick.mock.calls.map(([g]) => g.getGuid())).toEqual(["g005", "g006", "g007"]);
    expect(options()[4]!.getAttribute("aria-checked")).toBeNull();
  });
});

describe("ChatGroups: keyboard focus", () => {
  it("roving tabindex: one Tab stop; arrows, Home, End, Page keys move the focus", async () => {
    await mount();
    const tabStops = () => options().filter((o) => o.tabIndex === 0);
    expect(tabStops()).toEqual([options()[0]]);
    options()[0]!.focus();
    const key = (k: string) => fireEvent.keyDown(document.activeElement!, { key: k });
    key("ArrowDown");
    key("ArrowDown");
    expect(document.activeElement).toBe(options()[2]);
    expect(tabStops()).toEqual([options()[2]]);
    key("ArrowUp");
    expect(document.activeElement).toBe(options()[1]);
    key("End");
    expect(document.activeElement).toBe(options()[29]);
    key("ArrowDown"); // stays on the last loaded row
    expect(document.activeElement).toBe(options()[29]);
    key("Home");
    expect(document.activeElement).toBe(options()[0]);
    key("PageDown");
    expect(document.activeElement).toBe(options()[10]);
    key("PageUp");
    expect(document.activeElement).toBe(options()[0]);
  });

  it("moves the focus to a neighbour when the focused row goes away", async () => {
    await mount();
    options()[3]!.focus();
    fireEvent.focus(options()[3]!);
    act(() => ChatGroupEvents.ccGroupDeleted.next(new Chat.Group("g004", "Group 004")));
    await waitFor(() => expect(options()).toHaveLength(29));
    await waitFor(() => expect(document.activeElement?.textContent).toContain("Group 005"));
  });
});
