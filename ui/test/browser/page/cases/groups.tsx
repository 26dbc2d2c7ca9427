// ChatGroups with the props under test (params), logged in with the test's token. Callbacks are
// recorded (onItemClick → [guid], onSelect → [guid, selected], onError → [code], option clicks
// → [option id, guid]); window.__groups raises the UI events ccGroupCreated / ccGroupDeleted.
import { Chat } from "@agentry/chat-sdk";
import { ChatGroupEvents, ChatGroups, SelectionMode, type ChatGroupsProps } from "@agentry/ui-kit";
import { defineCase, record } from "../case";

declare global {
  interface Window {
    __groups?: { created(guid: string): Promise<void>; deleted(guid: string): Promise<void> };
  }
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const num = (v: unknown) => (typeof v === "number" ? v : undefined);

const ICON = (path: string) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="black" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${path}</svg>`)}`;
const MUTE_ICON = ICON('<path d="M11 5 6 9H2v6h4l5 4V5z"/><path d="m23 9-6 6M17 9l6 6"/>');

export default defineCase(async ({ host, token, params }) => {
  await Chat.init("test", { host });
  await Chat.login(token!);

  window.__groups = {
    created: async (guid) => ChatGroupEvents.ccGroupCreated.next(await Chat.getGroup(guid)),
    deleted: async (guid) => ChatGroupEvents.ccGroupDeleted.next(new Chat.Group(guid, guid)),
  };

  const props: ChatGroupsProps = {
    onItemClick: record("onItemClick", (g: Chat.Group) => [g.getGuid()]),
    onError: record("onError", (e: Chat.ChatException) => [e.code]),
  };
  const selection = str(params.selectionMode);
  if (selection === "single" || selection === "multiple") {
    props.selectionMode = SelectionMode[selection];
    props.onSelect = record("onSelect", (g: Chat.Group, on: boolean) => [g.getGuid(), on]);
  }
  const limit = num(params.limit);
  if (limit !== undefined || params.joinedOnly) {
    const b = new Chat.GroupsRequestBuilder();
    if (limit !== undefined) b.setLimit(limit);
    if (params.joinedOnly) b.joinedOnly(true);
    props.groupsRequestBuilder = b;
  }
  const searchLimit = num(params.searchLimit);
  if (searchLimit !== undefined) props.searchRequestBuilder = new Chat.GroupsRequestBuilder().setLimit(searchLimit);
  // activeGroup by guid, deliberately a hand-made object (matched by guid, not by reference).
  const active = str(params.activeGuid);
  if (active) props.activeGroup = new Chat.Group(active, active);
  for (const k of ["hideSearch", "hideError", "hideGroupType", "showScrollbar"] as const) {
    if (params[k]) props[k] = true;
  }
  if (params.options) {
    props.options = (g) => [
      { id: "mute", title: "Mute", iconURL: MUTE_ICON, onClick: () => record("onOption")("mute", g.getGuid()) },
      { id: "leave", title: "Leave", onClick: () => record("onOption")("leave", g.getGuid()) },
    ];
  }
  if (params.flags) {
    // hasJoined and scope made visible, for the membership transitions.
    props.trailingView = (g) => (
      <span className="case-flags" data-joined={String(g.getHasJoined())} data-scope={g.getScope() ?? ""}>
        {g.getHasJoined() ? `Joined · ${g.getScope() ?? "participant"}` : "Not joined"}
      </span>
    );
  }

  const width = str(params.width) ?? "380px";
  return (
    <div className="case-groups" style={{ width, height: "100%", borderRight: "1px solid var(--chat-border-color)" }}>
      <ChatGroups {...props} />
    </div>
  );
});
