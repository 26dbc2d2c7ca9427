/**
 * ChatGroups: the searchable, infinitely scrolling list of groups of the specification
 * ("Groups component"), live from the SDK's group listener. A listbox of options (roving
 * tabindex: arrows, Home, End, Page Up/Down move; Enter clicks; Space checks when selecting).
 */
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type FocusEvent, type KeyboardEvent } from "react";
import type { Chat } from "@agentry/chat-sdk";
import { SearchBar } from "../base/SearchBar";
import { useReadyGate } from "../base/socketReady";
import { SelectionMode } from "../types";
import { GroupRow } from "./GroupRow";
import { OptionsBar } from "./OptionsBar";
import type { ChatGroupsProps } from "./props";
import { groupsOf } from "./state";
import { useDebounced, useGroupsData } from "./useGroupsData";
import { useGroupsLive } from "./useGroupsLive";
import { DefaultEmpty, DefaultError, DefaultHeader, Shimmer } from "./views";

/** How close to the bottom (px) the next page starts loading. */
const PRELOAD_PX = 200;
const SEARCH_DEBOUNCE_MS = 300;

export function ChatGroups(props: ChatGroupsProps) {
  const selectionMode = props.selectionMode ?? SelectionMode.none;
  const selecting = selectionMode === SelectionMode.single || selectionMode === SelectionMode.multiple;
  const hideError = props.hideError ?? false;
  const baseId = useId();

  const [query, setQuery] = useState("");
  const keyword = useDebounced(query.trim(), SEARCH_DEBOUNCE_MS);
  // The first load waits for a connecting socket (see useReadyGate).
  const gate = useReadyGate();
  const data = useGroupsData(props.groupsRequestBuilder, props.searchRequestBuilder, keyword, props.onError, gate.open);
  const { state, loadMore, retry } = data;
  useGroupsLive(data.dispatch, data.filter, {
    onReset: data.reload,
    onConnected: () => {
      const again = gate.ready();
      if (state.error) retry();
      else if (again) data.reload();
    },
  });
  const groups = groupsOf(state);

  // Selection (uncontrolled), by guid.
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  const propsRef = useRef(props);
  propsRef.current = props;
  const byGuidRef = useRef(state.byGuid);
  byGuidRef.current = state.byGuid;

  const toggle = useCallback(
    (group: Chat.Group) => {
      const guid = group.getGuid();
      const cur = selectedRef.current;
      const onSelect = propsRef.current.onSelect;
      if (selectionMode === SelectionMode.multiple) {
        const next = new Set(cur);
        const on = !next.has(guid);
        if (on) next.add(guid);
        else next.delete(guid);
        setSelected(next);
        onSelect?.(group, on);
      } else if (selectionMode === SelectionMode.single) {
        if (cur.has(guid)) return; // a radio stays checked
        setSelected(new Set([guid]));
        for (const prev of cur) {
          const g = byGuidRef.current.get(prev);
          if (g) onSelect?.(g, false);
        }
        onSelect?.(group, true);
      }
    },
    [selectionMode],
  );

  // Roving focus.
  const rows = useRef(new Map<string, HTMLElement>());
  const setRef = useCallback((guid: string, el: HTMLElement | null) => {
    if (el) rows.current.set(guid, el);
    else rows.current.delete(guid);
  }, []);
  const [focusGuid, setFocusGuid] = useState<string | null>(null);
  const lastIndex = useRef(0);
  const activeGuid = props.activeGroup?.getGuid();
  const tabStop =
    focusGuid && state.byGuid.has(focusGuid) ? focusGuid : activeGuid && state.byGuid.has(activeGuid) ? activeGuid : (state.order[0] ?? null);

  const focusRow = useCallback((guid: string) => {
    setFocusGuid(guid);
    rows.current.get(guid)?.focus();
  }, []);

  const activate = useCallback(
    (group: Chat.Group) => {
      setFocusGuid(group.getGuid());
      propsRef.current.onItemClick?.(group);
    },
    [],
  );

  const onListKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const option = (e.target as HTMLElement).closest<HTMLElement>("[role=option]");
    const guid = option?.parentElement?.dataset["guid"];
    if (!guid) return;
    const order = state.order;
    const i = order.indexOf(guid);
    let to: number | undefined;
    switch (e.key) {
      case "ArrowDown":
        to = i + 1;
        break;
      case "ArrowUp":
        to = i - 1;
        break;
      case "Home":
        to = 0;
        break;
      case "End":
        to = order.length - 1;
        break;
      case "PageDown":
        to = i + 10;
        break;
      case "PageUp":
        to = i - 10;
        break;
      case "Enter":
      case " ": {
        e.preventDefault();
        const g = state.byGuid.get(guid);
        if (!g) return;
        if (e.key === " " && selecting) toggle(g);
        else activate(g);
        return;
      }
      default:
        return;
    }
    e.preventDefault();
    const target = order[Math.max(0, Math.min(order.length - 1, to))];
    if (target) focusRow(target);
  };

  // Focus inside the list (rows or the actions bar), and keeping it when its row goes away.
  const scroller = useRef<HTMLDivElement>(null);
  const [listFocused, setListFocused] = useState(false);
  const onFocus = (e: FocusEvent<HTMLElement>) => {
    setListFocused(true);
    const guid = (e.target as HTMLElement).closest<HTMLElement>("[role=option]")?.parentElement?.dataset["guid"];
    if (guid) {
      setFocusGuid(guid);
      lastIndex.current = state.order.indexOf(guid);
    }
  };
  const onBlur = (e: FocusEvent<HTMLElement>) => {
    if (!scroller.current?.contains(e.relatedTarget as Node | null)) setListFocused(false);
  };
  useEffect(() => {
    if (!focusGuid || state.byGuid.has(focusGuid) || state.order.length === 0) return;
    const active = typeof document === "undefined" ? null : document.activeElement;
    if (active && active !== document.body) return; // the user is elsewhere
    if (!listFocused) return;
    const next = state.order[Math.min(lastIndex.current, state.order.length - 1)];
    if (next) focusRow(next);
  }, [state.order, state.byGuid, focusGuid, listFocused, focusRow]);

  // Actions bar: the hovered row, else the focused one.
  const [hoverGuid, setHoverGuid] = useState<string | null>(null);
  const [barFocusGuid, setBarFocusGuid] = useState<string | null>(null);
  const barGuid = barFocusGuid ?? hoverGuid ?? (listFocused ? tabStop : null);
  const barGroup = props.options && barGuid ? state.byGuid.get(barGuid) : undefined;
  const barAnchor = barGuid ? rows.current.get(barGuid) : undefined;

  // Paging: the bottom sentinel coming into view, and after each page while the list does not
  // fill its viewport (the sentinel then never leaves the view, so it never fires again).
  const sentinel = useRef<HTMLDivElement>(null);
  const loadMoreRef = useRef(loadMore);
  loadMoreRef.current = loadMore;
  const listShown = groups.length > 0;
  const checkFill = useCallback(() => {
    const el = scroller.current;
    if (!el || el.clientHeight === 0) return; // not laid out (hidden, or jsdom)
    if (el.scrollHeight - el.scrollTop - el.clientHeight <= PRELOAD_PX) loadMoreRef.current();
  }, []);
  useEffect(() => {
    const root = scroller.current;
    const target = sentinel.current;
    if (!root || !target) return;
    const cleanups: (() => void)[] = [];
    if (typeof IntersectionObserver !== "undefined") {
      const io = new IntersectionObserver((entries) => {
        if (entries.some((en) => en.isIntersecting)) loadMoreRef.current();
      }, { root, rootMargin: `0px 0px ${PRELOAD_PX}px 0px` });
      io.observe(target);
      cleanups.push(() => io.disconnect());
    }
    if (typeof ResizeObserver !== "undefined") {
      const ro = new ResizeObserver(() => checkFill());
      ro.observe(root);
      cleanups.push(() => ro.disconnect());
    }
    return () => cleanups.forEach((c) => c());
  }, [listShown, checkFill]);
  useLayoutEffect(() => {
    if (!state.fetching && state.hasMore && !state.error && !state.loading) checkFill();
  }, [state.fetching, state.hasMore, state.error, state.loading, state.order.length, checkFill]);

  const headerTitleId = `${baseId}-title`;
  const header = props.headerView !== undefined ? props.headerView : <DefaultHeader titleId={headerTitleId} />;
  const errorView = hideError ? null : (props.errorView ?? null);

  let body;
  if (state.loading && !listShown) {
    body = props.loadingView ?? <Shimmer rows={8} label={keyword ? "Searching groups" : "Loading groups"} />;
  } else if (state.error && !listShown) {
    body = hideError ? null : (errorView ?? <DefaultError onRetry={retry} />);
  } else if (!listShown) {
    body = props.emptyView ?? <DefaultEmpty keyword={keyword} />;
  } else {
    body = (
      <div className="chat-groups__list-container" ref={scroller} onMouseLeave={() => setHoverGuid(null)} onFocus={onFocus} onBlur={onBlur}>
        <ul
          className="chat-groups__list"
          role="listbox"
          aria-labelledby={props.headerView === undefined ? headerTitleId : undefined}
          aria-label={props.headerView === undefined ? undefined : "Groups"}
          aria-multiselectable={selectionMode === SelectionMode.multiple ? true : undefined}
          aria-busy={state.fetching}
          onKeyDown={onListKeyDown}
        >
          {groups.map((g) => {
            const guid = g.getGuid();
            return (
              <GroupRow
                key={guid}
                group={g}
                optionId={`${baseId}-option-${guid}`}
                active={guid === activeGuid}
                selected={selected.has(guid)}
                selectionMode={selectionMode}
                tabStop={guid === tabStop}
                withActions={barGroup !== undefined && guid === barGuid}
                onActivate={activate}
                onToggle={toggle}
                onHover={setHoverGuid}
                setRef={setRef}
                itemView={props.itemView}
                leadingView={props.leadingView}
                titleView={props.titleView}
                subtitleView={props.subtitleView}
                trailingView={props.trailingView}
                hideGroupType={props.hideGroupType}
              />
            );
          })}
        </ul>
        {state.fetching ? <Shimmer rows={2} className="chat-groups__shimmer--more" /> : null}
        {state.error && !hideError ? (errorView ?? <DefaultError inline onRetry={retry} />) : null}
        <div className="chat-groups__sentinel" ref={sentinel} aria-hidden="true" />
        {barGroup && barAnchor && props.options ? (
          <div
            className="chat-groups__options-anchor"
            onFocus={() => setBarFocusGuid(barGroup.getGuid())}
            onBlur={(e) => {
              if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setBarFocusGuid(null);
            }}
          >
            <OptionsBar group={barGroup} options={props.options(barGroup)} anchor={barAnchor} onEscape={() => focusRow(barGroup.getGuid())} />
          </div>
        ) : null}
      </div>
    );
  }

  return (
    <div className={"chat-groups" + (props.showScrollbar ? " chat-groups--scrollbar" : "")}>
      {header}
      {props.hideSearch ? null : <SearchBar value={query} onChange={setQuery} placeholder="Search groups" label="Search groups" />}
      <div className="chat-groups__body">{body}</div>
    </div>
  );
}
