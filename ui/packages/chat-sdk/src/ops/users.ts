import { ChatException, SDK_ERROR } from "../exception";
import { userToWire } from "../mapping";
import type { User } from "../models/user";
import type { Session } from "../session";
import type { WireUser } from "../wire";

const enc = encodeURIComponent;

/** Creates a user with the development Auth Key (production creates users with the REST API key, server side). */
export async function createUser(s: Session, user: User, authKey: string): Promise<User> {
  if (!authKey) throw new ChatException(SDK_ERROR.VALIDATION, "createUser needs the Auth Key");
  const w = await s.http.json<WireUser>("POST", "/users", { auth: { headers: { authkey: authKey } }, body: userToWire(user) });
  return s.directory.putWireUser(w);
}

export async function getUser(s: Session, uid: string): Promise<User> {
  const w = await s.http.json<WireUser>("GET", `/users/${enc(uid)}`);
  return s.directory.putWireUser(w);
}

/** Changes a person's role (admins): "admin", or "" for a member. */
export async function setUserRole(s: Session, uid: string, role: string): Promise<User> {
  const w = await s.http.json<WireUser>("PUT", `/users/${enc(uid)}/role`, { body: { role } });
  return s.directory.putWireUser(w);
}

/** What an admin asks for when inviting someone: a new person needs a name. */
export interface InvitationRequest {
  readonly uid: string;
  readonly name?: string;
  readonly role?: string;
  /** The link's lifetime in seconds (default a week, 60 s to 30 days). */
  readonly expiresIn?: number;
}

/** An invitation as made: code goes into the link (`<chat>/#invite=<code>`) and is shown once. */
export interface Invitation {
  readonly id: string;
  readonly code: string;
  readonly user: User;
  /** When the link stops working (ms since the epoch). */
  readonly expiresAt: number;
}

interface WireInvitation {
  invitation: { id: string; uid: string; expiresAt: string };
  code: string;
  user: WireUser;
}

/** Invites a person to set up their own sign-in (admins; a chat without an identity provider),
 * creating them when the uid is new. */
export async function createInvitation(s: Session, req: InvitationRequest): Promise<Invitation> {
  const w = await s.http.json<WireInvitation>("POST", "/invitations", { body: { ...req } });
  return { id: w.invitation.id, code: w.code, user: s.directory.putWireUser(w.user), expiresAt: Date.parse(w.invitation.expiresAt) };
}

/** Deactivates a person (admins): their sessions and sockets end at once and they cannot sign in
 * until reactivated; or reactivates them. */
export async function setUserDeactivated(s: Session, uid: string, deactivated: boolean): Promise<User> {
  const w = await s.http.json<WireUser>("POST", `/users/${enc(uid)}/${deactivated ? "deactivate" : "reactivate"}`);
  return s.directory.putWireUser(w);
}
