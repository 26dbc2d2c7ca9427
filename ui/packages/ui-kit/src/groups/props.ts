import type { ReactNode } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ChatOption, SelectionMode } from "../types";

/**
 * Every prop of the specification's ChatGroups; all optional. View slots may return any
 * React node (a JSX.Element fits).
 */
export interface ChatGroupsProps {
  /**
   * Which groups load and how many per page: pass the builder, not the result of build().
   * Default `new Chat.GroupsRequestBuilder().setLimit(30)`. The list builds a copy, so the
   * instance passed is never changed; a new instance with the same settings does not reload.
   */
  groupsRequestBuilder?: Chat.GroupsRequestBuilder;
  /**
   * The filter used while the search bar has text (its keyword is set to the text). Default: a
   * copy of groupsRequestBuilder with the keyword.
   */
  searchRequestBuilder?: Chat.GroupsRequestBuilder;
  /**
   * The highlighted group. Matched by guid: unlike the commercial kit (reference equality), a
   * group fetched again or built by hand highlights the same row.
   */
  activeGroup?: Chat.Group;
  /** A row was clicked (or Enter pressed on it). */
  onItemClick?: (group: Chat.Group) => void;
  /**
   * A row was checked or unchecked (Space, or a click on its check box); needs selectionMode.
   * In single mode, choosing another row unchecks the previous one first (selected = false).
   */
  onSelect?: (group: Chat.Group, selected: boolean) => void;
  /** A group page failed to load (network, auth, SDK exception). null: not called. */
  onError?: ((error: Chat.ChatException) => void) | null;
  /** Hides the search bar. */
  hideSearch?: boolean;
  /** Hides the default and the custom error view. */
  hideError?: boolean;
  /** Hides the private / password indicator on the avatar (public groups have none). */
  hideGroupType?: boolean;
  /** Shows the list's scrollbar (hidden by default; the list scrolls either way). */
  showScrollbar?: boolean;
  /** Default SelectionMode.none; single checks one row (radio), multiple any (check boxes). */
  selectionMode?: SelectionMode;
  /** Replaces the whole row's content (the row stays an option of the listbox). */
  itemView?: (group: Chat.Group) => ReactNode;
  /** Replaces the avatar (and the group type indicator on it). */
  leadingView?: (group: Chat.Group) => ReactNode;
  /** Replaces the name. */
  titleView?: (group: Chat.Group) => ReactNode;
  /** Replaces the member count. */
  subtitleView?: (group: Chat.Group) => ReactNode;
  /** Replaces the right section (the selection box, when selecting, stays before it). */
  trailingView?: (group: Chat.Group) => ReactNode;
  /** Replaces the header bar (default: the title "Groups"). */
  headerView?: ReactNode;
  /** Shown while the first page (or a search) loads; default a shimmer. */
  loadingView?: ReactNode;
  /** Shown when there is no group (or no search result). */
  emptyView?: ReactNode;
  /** Shown when loading failed (unless hideError); the default one has a retry button. */
  errorView?: ReactNode;
  /** Actions of a row, shown on hover and when the row has keyboard focus. */
  options?: (group: Chat.Group) => ChatOption[];
}
