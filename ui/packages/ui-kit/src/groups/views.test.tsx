// ChatGroups: views and hide props, errors, row actions, UI events and clean-up.
import { Chat } from "@agentry/chat-sdk";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { StrictMode } from "react";
import { describe, expect, it, vi } from "vitest";
import { ChatGroupEvents } from "../events";
import { ChatGroups } from "./ChatGroups";
import { FakeIntersectionObserver, listenerCounts, mount, names, options, SPEC_SELECTORS, until, useGroupsService } from "./testing";

const t = useGroupsService();

describe("ChatGroups: views and hide props", () => {
  it("shows the type indicator (with a name) for private and password groups only", async () => {
    t.svc.set("g001", { type: "private", hasJoined: true });
    t.svc.set("g002", { type: "password" });
    const { container, unmount } = await mount();
    expect(container.querySelector(".chat-groups__list-item-private .chat-list-item__status .chat-list-item__status-icon")).not.toBeNull();
    expect(container.querySelector(".chat-groups__list-item-password .chat-list-item__status .chat-list-item__status-icon")).not.toBeNull();
    expect(screen.getByRole("img", { name: "Private group" })).toBeTruthy();
    expect(screen.getByRole("img", { name: "Password-protected group" })).toBeTruthy();
    expect(container.querySelectorAll(".chat-list-item__status")).toHaveLength(2);
    unmount();
    const r = await mount({ hideGroupType: true, hideSearch: true });
    expect(r.container.querySelector(".chat-list-item__status")).toBeNull();
    expect(screen.queryByRole("searchbox")).toBeNull();
  });

  it("renders every slot it is given", async () => {
    await mount({
      headerView: <div data-testid="header">My header</div>,
      leadingView: (g) => <i data-testid="lead">{g.getGuid()}</i>,
      titleView: (g) => <b data-testid="title">{g.getName().toUpperCase()}</b>,
      subtitleView: (g) => <span data-testid="sub">{g.getMembersCount()} people</span>,
      trailingView: (g) => <span data-testid="trail">{g.getHasJoined() ? "in" : "out"}</span>,
    });
    expect(screen.getByTestId("header").textContent).toBe("My header");
    expect(screen.queryByRole("heading", { name: "Groups" })).toBeNull();
    expect(screen.getByRole("listbox", { name: "Groups" })).toBeTruthy();
    expect(screen.getAllByTestId("lead")[0]!.textContent).toBe("g001");
    expect(screen.getAllByTestId("title")[0]!.textContent).toBe("GROUP 001");
    expect(screen.getAllByTestId("sub")[1]!.textContent).toBe("2 people");
    expect(screen.getAllByTestId("trail")[0]!.textContent).toBe("out");
    expect(document.querySelector(".chat-avatar")).toBeNull();
    cleanup();
    await mount({ itemView: (g) => <span data-testid="item">{g.getGuid()}</span> });
    expect(options()[0]!.textContent).toBe("g001");
    expect(document.querySelector(".chat-list-item")).toBeNull();
  });

  it("loading and empty views: default and custom", async () => {
    t.svc.groups.clear();
    let release: (() => void) | undefined;
    t.svc.hold = () => new Promise<void>((r) => (release = r));
    const { unmount } = render(<ChatGroups />);
    await waitFor(() => expect(document.querySelector(".chat-groups__shimmer")).not.toBeNull());
    for (const c of ["item", "item-avatar", "item-body-title", "item-body-subtitle"]) {
      expect(document.querySelector(`.chat-groups__shimmer-${c}`), c).not.toBeNull();
    }
    expect(screen.getByRole("status").textContent).toContain("Loading groups");
    await until(() => release !== undefined, "the held request");
    release!();
    await screen.findByText("No groups available");
    unmount();
    t.svc.hold = undefined;
    render(<ChatGroups emptyView={<p>Nothing here</p>} loadingView={<p>Wait</p>} />);
    expect(screen.getByText("Wait")).toBeTruthy();
    await screen.findByText("Nothing here");
  });
});

describe("ChatGroups: errors", () => {
  it("on failure: onError with the ChatException, the error view, retry recovers", async () => {
    t.svc.down = true;
    const onError = vi.fn<(e: Chat.ChatException) => void>();
    render(<ChatGroups onError={onError} />);
    const title = await screen.findByText("Couldn’t load groups");
    expect(title.className).toBe("chat-groups__error-state-view-body-title");
    expect(document.querySelector(".chat-groups__error-state-view-body-description")).not.toBeNull();
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(Chat.ChatException);
    expect(onError.mock.calls[0]![0].code).toBe("ERR_SERVICE_UNAVAILABLE");
    t.svc.down = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(options()).toHaveLength(30));
    expect(document.querySelector(".chat-groups__error-state-view")).toBeNull();
  });

  it("retries by itself when the socket is ready again after a failure", async () => {
    t.svc.down = true;
    const onError = vi.fn();
    render(<ChatGroups onError={onError} hideError />);
    await waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
    expect(document.querySelector(".chat-groups__error-state-view")).toBeNull();
    t.svc.down = false;
    act(() => t.ws.ready());
    await waitFor(() => expect(options()).toHaveLength(30));
    const calls = t.svc.listCalls.length;
    act(() => t.ws.ready()); // connected again without a failure: nothing reloads
    await new Promise((r) => setTimeout(r, 30));
    expect(t.svc.listCalls).toHaveLength(calls);
  });

  it("a failed next page keeps the list and offers a retry", async () => {
    const onError = vi.fn();
    await mount({ onError });
    await waitFor(() => expect(FakeIntersectionObserver.live()).toBe(1)); // observed in a passive effect, after the rows
    t.svc.down = true;
    act(() => FakeIntersectionObserver.intersect());
    await screen.findByText("Couldn’t load more groups");
    expect(options()).toHaveLength(30);
    act(() => FakeIntersectionObserver.intersect()); // no retry loop while failed
    await new Promise((r) => setTimeout(r, 20));
    expect(onError).toHaveBeenCalledTimes(1);
    t.svc.down = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(options()).toHaveLength(60));
  });

  it("custom errorView; hideError hides it and the default; onError null is not called", async () => {
    t.svc.down = true;
    const { unmount } = render(<ChatGroups errorView={<p>Custom error</p>} onError={null} />);
    await screen.findByText("Custom error");
    unmount();
    const onError = vi.fn();
    render(<ChatGroups errorView={<p>Custom error</p>} hideError onError={onError} />);
    await waitFor(() => expect(onError).toHaveBeenCalled());
    expect(screen.queryByText("Custom error")).toBeNull();
    expect(document.querySelector(".chat-groups__error-state-view")).toBeNull();
    expect(document.querySelector(".chat-groups__shimmer")).toBeNull();
  });
});

describe("ChatGroups: options and styling hooks", () => {
  it("options: a toolbar of the hovered or focused row, its buttons call onClick", async () => {
    const clicked: string[] = [];
    const { container } = await mount({
      options: (g) => [
        { id: "mute", title: "Mute", iconURL: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E", onClick: () => clicked.push(`mute ${g.getGuid()}`) },
        { id: "leave", title: "Leave", onClick: () => clicked.push(`leave ${g.getGuid()}`) },
      ],
    });
    expect(screen.queryByRole("toolbar")).toBeNull();
    fireEvent.mouseEnter(container.querySelectorAll(".chat-groups__list-item")[2]!);
    const bar = screen.getByRole("toolbar", { name: "Actions for Group 003" });
    fireEvent.click(within(bar).getByRole("button", { name: "Mute" }));
    expect(within(bar).getByRole("button", { name: "Leave" }).textContent).toBe("Leave");
    fireEvent.mouseLeave(container.querySelector(".chat-groups__list-container")!);
    expect(screen.queryByRole("toolbar")).toBeNull();
    options()[5]!.focus();
    const bar2 = await screen.findByRole("toolbar", { name: "Actions for Group 006" });
    fireEvent.click(within(bar2).getByRole("button", { name: "Leave" }));
    expect(clicked).toEqual(["mute g003", "leave g006"]);
    // no focusable element inside an option
    expect(container.querySelector("[role=option] button, [role=option] [tabindex='0'] [tabindex]")).toBeNull();
  });

  it("every selector of the styling hooks matches an element in one of the states", async () => {
    t.svc.set("g001", { type: "private", hasJoined: true });
    t.svc.set("g002", { type: "password" });
    const seen = new Set<string>();
    const look = () => SPEC_SELECTORS.forEach((s) => document.querySelector(s) && seen.add(s));
    await mount({ activeGroup: new Chat.Group("g003", "Group 003") });
    look();
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "no such group" } });
    await screen.findByText("No groups found");
    look();
    cleanup();
    let release: (() => void) | undefined;
    t.svc.hold = () => new Promise<void>((r) => (release = r));
    render(<ChatGroups />);
    await waitFor(() => expect(document.querySelector(".chat-groups__shimmer")).not.toBeNull());
    look();
    t.svc.down = true;
    await until(() => release !== undefined, "the held request");
    release!();
    await screen.findByText("Couldn’t load groups");
    look();
    expect(SPEC_SELECTORS.filter((s) => !seen.has(s))).toEqual([]);
  });

  it("showScrollbar toggles the scrollbar class", async () => {
    const { container, rerender } = await mount();
    expect(container.querySelector(".chat-groups")!.className).toBe("chat-groups");
    rerender(<ChatGroups showScrollbar />);
    expect(container.querySelector(".chat-groups")!.className).toBe("chat-groups chat-groups--scrollbar");
  });
});

describe("ChatGroups: UI events and clean-up", () => {
  it("ccGroupCreated inserts at the top, ccGroupDeleted removes", async () => {
    await mount();
    const g = new Chat.Group("a-new", "A new group");
    g.setMembersCount(1);
    g.setHasJoined(true);
    act(() => ChatGroupEvents.ccGroupCreated.next(g));
    await waitFor(() => expect(names()[0]).toBe("A new group"));
    act(() => ChatGroupEvents.ccGroupDeleted.next(new Chat.Group("g002", "x")));
    await waitFor(() => expect(names().slice(0, 3)).toEqual(["A new group", "Group 001", "Group 003"]));
  });

  it("leaves no listener, subscription or observer behind (strict mode: one of each while mounted)", async () => {
    const before = listenerCounts();
    const subjects = Object.values(ChatGroupEvents);
    const observers = () => subjects.reduce((n, s) => n + s.observers, 0);
    expect(observers()).toBe(0);
    const { unmount } = render(
      <StrictMode>
        <ChatGroups />
        <ChatGroups />
      </StrictMode>,
    );
    // The rows are committed before React runs the passive effects that subscribe and
    // observe; on a loaded machine the DOM check can fall between the two, so wait for both.
    await waitFor(() => {
      expect(options()).toHaveLength(60);
      expect(FakeIntersectionObserver.live()).toBe(2);
    });
    expect(listenerCounts()).toEqual({ group: before.group + 2, connection: before.connection + 2 });
    expect(ChatGroupEvents.ccGroupCreated.observers).toBe(2);
    expect(ChatGroupEvents.ccGroupDeleted.observers).toBe(2);
    unmount();
    expect(listenerCounts()).toEqual(before);
    expect(observers()).toBe(0);
    expect(FakeIntersectionObserver.live()).toBe(0);
  });

  it("reloads on the SDK's reset", async () => {
    await mount();
    const calls = t.svc.listCalls.length;
    t.svc.add({ guid: "a-first", name: "A first", membersCount: 2 });
    act(() => t.ws.reset());
    await waitFor(() => expect(names()[0]).toBe("A first"));
    expect(t.svc.listCalls.length).toBe(calls + 1);
    await until(() => options().length === 30);
  });
});
