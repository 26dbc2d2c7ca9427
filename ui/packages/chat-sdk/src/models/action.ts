import type { ActionType, GroupMemberScope } from "../constants";
import type { Group } from "./group";
import { BaseMessage } from "./message";
import type { User } from "./user";

/**
 * A membership action message (category "action", type "groupMember"): who did what to whom
 * in which group. The group listener's callbacks get one as their first argument.
 */
export class Action extends BaseMessage {
  protected action: string;
  protected actionBy?: User;
  protected actionOn?: User;
  protected actionFor?: Group;
  protected newScope?: GroupMemberScope;
  protected oldScope?: GroupMemberScope;

  constructor(guid: string, action: string) {
    super(guid, "group", "action", "groupMember");
    this.action = action;
  }
  /** joined, left, kicked, banned, unbanned, added, scopeChanged or ownershipTransferred. */
  getAction(): ActionType | string { return this.action; }
  getActionBy(): User | undefined { return this.actionBy; }
  getActionOn(): User | undefined { return this.actionOn; }
  getActionFor(): Group | undefined { return this.actionFor; }
  /** The scope given (added, joined, scopeChanged; admin for ownershipTransferred). */
  getNewScope(): GroupMemberScope | undefined { return this.newScope; }
  getOldScope(): GroupMemberScope | undefined { return this.oldScope; }
  /** The action as a sentence ("alice kicked bob"). */
  getMessage(): string { return this.text ?? ""; }

  setActionBy(u: User): void { this.actionBy = u; }
  setActionOn(u: User): void { this.actionOn = u; }
  setActionFor(g: Group): void { this.actionFor = g; }
  setNewScope(s: GroupMemberScope | undefined): void { this.newScope = s; }
  setOldScope(s: GroupMemberScope | undefined): void { this.oldScope = s; }
  setMessage(text: string): void { this.text = text; }
}
