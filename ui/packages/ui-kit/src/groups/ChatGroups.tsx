/**
 * ChatGroups: the searchable, infinitely scrolling list of groups of the specification
 * ("Groups component"), live from the SDK's group listener. A listbox of options (roving
 * tabindex: arrows, Home, End, Page Up/Down move; Enter clicks; Space checks when selecting).
 * Built from hooks: the data (useGroupsData), live updates (useGroupsLive), keyboard and focus
 * (useGroupsFocus), paging (useGroupsPaging) and the selection (useSelection).
 */
import { useCallback, useId, useRef, useState } from "react";
import type { Chat } from "@agentry/chat-sdk";
import { SearchBar } from "../base/SearchBar";
import { useReadyGate } from "../base/socketReady";
import { SelectionMode } from "../types";
import { GroupRow } from "./GroupRow";
import { OptionsBar } from "./OptionsBar";
import type { ChatGroupsProps } from "./props";
import { groupsOf } from "./state";
import { useDebounced, useGroupsData } from "./useGroupsData";
import { useGroupsFocus } from "./useGroupsFocus";
import { useGroupsLive } from "./useGroupsLive";
import { useGroupsPaging } from "./useGroupsPaging";
import { DefaultEmpty, DefaultError, DefaultHeader, Shimmer } from "./views";

const SEARCH_DEBOUNCE_MS = 300;

export function ChatGroups(props: ChatGroupsProps) {
  const v = useChatGroups(props);
  const { state, keyword, hideError } = v;
  const headerTitleId = `${v.baseId}-title`;
  const header = props.headerView !== undefined ? props.headerView : <DefaultHeader titleId={headerTitleId} />;
  let body;
  if (state.loading && !v.listShown) body = props.loadingView ?? <Shimmer rows={8} label={keyword ? "Searching groups" : "Loading groups"} />;
  else if (state.error && !v.listShown) body = hideError ? null : (props.errorView ?? <DefaultError onRetry={v.retry} />);
  else if (!v.listShown) body = props.emptyView ?? <DefaultEmpty keyword={keyword} />;
  else body = <GroupsList v={v} props={props} titleId={headerTitleId} />;
  return (
    <div className={"chat-groups" + (props.showScrollbar ? " chat-groups--scrollbar" : "")}>
      {header}
      {props.hideSearch ? null : <SearchBar value={v.query} onChange={v.setQuery} placeholder="Search groups" label="Search groups" />}
      <div className="chat-groups__body">{body}</div>
    </div>
  );
}

type GroupsView = ReturnType<typeof useChatGroups>;

function useChatGroups(props: ChatGroupsProps) {
  const selectionMode = props.selectionMode ?? SelectionMode.none;
  const baseId = useId();
  const [query, setQuery] = useState("");
  const keyword = useDebounced(query.trim(), SEARCH_DEBOUNCE_MS);
  // The first load waits for a connecting socket (see useReadyGate).
  const gate = useReadyGate();
  const data = useGroupsData(props.groupsRequestBuilder, props.searchRequestBuilder, keyword, props.onError, gate.open);
  const { state, retry } = data;
  useGroupsLive(data.dispatch, data.filter, {
    onReset: data.reload,
    onConnected: () => {
      const again = gate.ready();
      if (state.error) retry();
      else if (again) data.reload();
    },
  });
  const groups = groupsOf(state);
  const propsRef = useRef(props);
  propsRef.current = props;
  const { selected, toggle } = useSelection(selectionMode, state.byGuid, propsRef);
  const scroller = useRef<HTMLDivElement>(null);
  const activeGuid = props.activeGroup?.getGuid();
  const focus = useGroupsFocus({
    state, activeGuid, scroller, toggle, selecting: selectionMode === SelectionMode.single || selectionMode === SelectionMode.multiple,
    onItemClick: (g) => propsRef.current.onItemClick?.(g),
  });
  const sentinel = useGroupsPaging(scroller, state, groups.length > 0, data.loadMore);
  // Actions bar: the hovered row, else the focused one.
  const [hoverGuid, setHoverGuid] = useState<string | null>(null);
  const [barFocusGuid, setBarFocusGuid] = useState<string | null>(null);
  const barGuid = barFocusGuid ?? hoverGuid ?? (focus.listFocused ? focus.tabStop : null);
  const barGroup = props.options && barGuid ? state.byGuid.get(barGuid) : undefined;
  return {
    baseId, query, setQuery, keyword, state, retry, groups, selectionMode, selected, toggle, activeGuid, focus, scroller, sentinel,
    hideError: props.hideError ?? false,
    listShown: groups.length > 0,
    setHoverGuid, setBarFocusGuid, barGuid, barGroup,
    barAnchor: barGuid ? focus.rows.current.get(barGuid) : undefined,
  };
}

/** Selection (uncontrolled), by guid: multiple toggles; single behaves like radio buttons. */
function useSelection(mode: SelectionMode, byGuid: ReadonlyMap<string, Chat.Group>, props: { current: ChatGroupsProps }) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const current = useRef({ selected, byGuid });
  current.current = { selected, byGuid };
  const toggle = useCallback((group: Chat.Group) => {
    const guid = group.getGuid();
    const cur = current.current.selected;
    const onSelect = props.current.onSelect;
    if (mode === SelectionMode.multiple) {
      const next = new Set(cur);
      const on = !next.has(guid);
      if (on) next.add(guid);
      else next.delete(guid);
      setSelected(next);
      onSelect?.(group, on);
    } else if (mode === SelectionMode.single) {
      if (cur.has(guid)) return; // a radio stays checked
      setSelected(new Set([guid]));
      for (const prev of cur) {
        const g = current.current.byGuid.get(prev);
        if (g) onSelect?.(g, false);
      }
      onSelect?.(group, true);
    }
  }, [mode, props]);
  return { selected, toggle };
}

function GroupsList({ v, props, titleId }: { v: GroupsView; props: ChatGroupsProps; titleId: string }) {
  const { state, focus, barGroup } = v;
  const errorView = v.hideError ? null : (props.errorView ?? null);
  return (
    <div className="chat-groups__list-container" ref={v.scroller} onMouseLeave={() => v.setHoverGuid(null)} onFocus={focus.onFocus} onBlur={focus.onBlur}>
      <ul
        className="chat-groups__list"
        role="listbox"
        aria-labelledby={props.headerView === undefined ? titleId : undefined}
        aria-label={props.headerView === undefined ? undefined : "Groups"}
        aria-multiselectable={v.selectionMode === SelectionMode.multiple ? true : undefined}
        aria-busy={state.fetching}
        onKeyDown={focus.onKeyDown}
      >
        {v.groups.map((g) => {
          const guid = g.getGuid();
          return (
            <GroupRow key={guid} group={g} optionId={`${v.baseId}-option-${guid}`} active={guid === v.activeGuid} selected={v.selected.has(guid)}
              selectionMode={v.selectionMode} tabStop={guid === focus.tabStop} withActions={barGroup !== undefined && guid === v.barGuid}
              onActivate={focus.activate} onToggle={v.toggle} onHover={v.setHoverGuid} setRef={focus.setRef} itemView={props.itemView}
              leadingView={props.leadingView} titleView={props.titleView} subtitleView={props.subtitleView} trailingView={props.trailingView}
              hideGroupType={props.hideGroupType} />
          );
        })}
      </ul>
      {state.fetching ? <Shimmer rows={2} className="chat-groups__shimmer--more" /> : null}
      {state.error && !v.hideError ? (errorView ?? <DefaultError inline onRetry={v.retry} />) : null}
      <div className="chat-groups__sentinel" ref={v.sentinel} aria-hidden="true" />
      {barGroup && v.barAnchor && props.options ? (
        <div
          className="chat-groups__options-anchor"
          onFocus={() => v.setBarFocusGuid(barGroup.getGuid())}
          onBlur={(e) => {
            if (!e.currentTarget.contains(e.relatedTarget as Node | null)) v.setBarFocusGuid(null);
          }}
        >
          <OptionsBar group={barGroup} options={props.options(barGroup)} anchor={v.barAnchor} onEscape={() => focus.focusRow(barGroup.getGuid())} />
        </div>
      ) : null}
    </div>
  );
}
