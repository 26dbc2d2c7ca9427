/**
 * One row of the groups list: an <li role="none"> carrying the state classes of the styling
 * hooks, around the listbox option. The option holds no focusable element (an option's content
 * is presentational): the selection box is drawn, and a row's actions live in the list's
 * toolbar (OptionsBar), outside the option.
 */
import { memo, type MouseEvent, type ReactNode } from "react";
import type { Chat } from "@agentry/chat-sdk";
import { Avatar } from "../base/Avatar";
import { CheckIcon, KeyIcon, LockIcon } from "../base/Icons";
import { SelectionMode } from "../types";
import type { ChatGroupsProps } from "./props";
import { membersText } from "./state";

type Slots = Pick<ChatGroupsProps, "itemView" | "leadingView" | "titleView" | "subtitleView" | "trailingView" | "hideGroupType">;

export interface GroupRowProps extends Slots {
  group: Chat.Group;
  optionId: string;
  active: boolean;
  selected: boolean;
  selectionMode: SelectionMode;
  /** The row the list's Tab stop is on (roving tabindex). */
  tabStop: boolean;
  /** The actions bar is over this row (it keeps the row's hover look while the pointer is on it). */
  withActions: boolean;
  onActivate: (group: Chat.Group) => void;
  onToggle: (group: Chat.Group) => void;
  onHover: (guid: string) => void;
  setRef: (guid: string, el: HTMLElement | null) => void;
}

const TYPE_LABEL: Record<string, string> = { private: "Private group", password: "Password-protected group" };

function TypeIndicator({ type }: { type: string }) {
  const label = TYPE_LABEL[type];
  if (!label) return null;
  const Icon = type === "private" ? LockIcon : KeyIcon;
  return (
    <span className="chat-list-item__status">
      <Icon className="chat-list-item__status-icon" title={label} />
    </span>
  );
}

function SelectionBox({ mode, selected, onToggle }: { mode: SelectionMode; selected: boolean; onToggle: (e: MouseEvent) => void }) {
  const kind = mode === SelectionMode.single ? "radio" : "checkbox";
  return (
    <span
      className={`chat-groups__selection chat-groups__selection--${kind}` + (selected ? " chat-groups__selection--checked" : "")}
      aria-hidden="true"
      onClick={onToggle}
    >
      {selected && kind === "checkbox" ? <CheckIcon className="chat-groups__selection-icon" /> : null}
    </span>
  );
}

function DefaultContent(p: GroupRowProps): ReactNode {
  const { group: g } = p;
  const selecting = p.selectionMode === SelectionMode.single || p.selectionMode === SelectionMode.multiple;
  return (
    <>
      <div className="chat-list-item__leading-view">
        {p.leadingView ? (
          p.leadingView(g)
        ) : (
          <>
            <Avatar name={g.getName()} image={g.getIcon()} />
            {p.hideGroupType ? null : <TypeIndicator type={g.getType()} />}
          </>
        )}
      </div>
      <div className="chat-list-item__body">
        <div className="chat-list-item__body-title">{p.titleView ? p.titleView(g) : g.getName()}</div>
        <div className="chat-list-item__body-subtitle">
          {p.subtitleView ? p.subtitleView(g) : <span className="chat-groups__subtitle">{membersText(g.getMembersCount())}</span>}
        </div>
      </div>
      {selecting || p.trailingView ? (
        <div className="chat-list-item__trailing-view">
          {p.trailingView ? p.trailingView(g) : null}
          {selecting ? (
            <SelectionBox
              mode={p.selectionMode}
              selected={p.selected}
              onToggle={(e) => {
                e.stopPropagation();
                p.onToggle(g);
              }}
            />
          ) : null}
        </div>
      ) : null}
    </>
  );
}

function GroupRowImpl(p: GroupRowProps) {
  const { group: g } = p;
  const guid = g.getGuid();
  const selecting = p.selectionMode === SelectionMode.single || p.selectionMode === SelectionMode.multiple;
  const cls = ["chat-groups__list-item", `chat-groups__list-item-${g.getType()}`];
  if (p.active) cls.push("chat-groups__list-item-active");
  if (selecting && p.selected) cls.push("chat-groups__list-item-selected");
  if (p.withActions) cls.push("chat-groups__list-item-with-actions");
  return (
    <li role="none" className={cls.join(" ")} data-guid={guid} onMouseEnter={() => p.onHover(guid)}>
      <div
        role="option"
        id={p.optionId}
        ref={(el) => p.setRef(guid, el)}
        className={p.itemView ? "chat-groups__item-view" : "chat-list-item"}
        tabIndex={p.tabStop ? 0 : -1}
        aria-selected={p.active || (selecting && p.selected)}
        aria-checked={selecting ? p.selected : undefined}
        aria-current={p.active ? "true" : undefined}
        onClick={() => p.onActivate(g)}
      >
        {p.itemView ? p.itemView(g) : <DefaultContent {...p} />}
      </div>
    </li>
  );
}

/** Rows re-render only when their own inputs change (a live event touches one group). */
export const GroupRow = memo(GroupRowImpl);
