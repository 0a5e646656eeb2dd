/**
 * Whom a target covers, and so what its sheet may show and change. The transfer account may change everyone's
 * time, so this is the only wall between one team's sheet and another team's time: every server write, every
 * Allowed tags line the tab shows and every line an import sends is judged here.
 *
 * - A target that lists no users and no teams covers the whole server: every user, every line.
 * - Otherwise it covers the users it lists and the members of the teams it lists (the config's team directory:
 *   the API has none). A team is the target's own when every member is covered.
 * - An Allowed tags line applies to the target when it is for everyone, or names a covered user, or a team with
 *   a covered member. It is the target's own when every name it lists is: a line shared with someone outside
 *   is shown (it applies to covered people) but stays as the server has it.
 *
 * Names compare as the server compares user names and tags: trimmed, without case. What this means for the
 * Allowed tags list is src/core/scoped-allowed-tags.ts.
 */
import type { KnownUser } from './row-context.ts'

/** Who may change which Allowed tags lines from a target's sheet. */
export type AllowedTagsEdits = 'read-only' | 'own' | 'own-and-everyone'

/** What a target says of its people, as the config gives it. */
export interface TargetPeople {
  /** Users the target covers: those it lists and the members of the teams it lists. Empty: the whole server. */
  users: readonly string[]
  /** Teams the target lists. */
  teams?: readonly string[]
  /** Every team the config knows, by name: its members' user names. */
  teamDirectory?: Readonly<Record<string, readonly string[]>>
}

export interface TargetScope {
  /** No users listed: the target covers every user of the server. */
  readonly whole: boolean
  /** Whether the target covers this user (a username as the server writes it). */
  covers(username: string): boolean
  /** The teams a user is a member of, in the directory's spelling and order. */
  teamsOf(username: string): string[]
  /** Whether a line with this `Applies to` applies to one of the target's people. */
  reaches(appliesTo: readonly string[]): boolean
  /** Whether every name of this `Applies to` is the target's own (a covered user, a team of covered members). */
  owns(appliesTo: readonly string[]): boolean
  /** The users the target lists, for messages (empty for the whole server). */
  readonly userNames: readonly string[]
}

export function targetScope(people: TargetPeople): TargetScope {
  const whole = people.users.length === 0
  const users = new Set(people.users.map(fold))
  const directory = new Map<string, { name: string; members: Set<string> }>()
  for (const [name, members] of Object.entries(people.teamDirectory ?? {})) {
    directory.set(fold(name), { name, members: new Set(members.map(fold)) })
  }
  const listedTeams = new Set((people.teams ?? []).map(fold))
  const teamReached = (team: string): boolean => {
    if (whole || listedTeams.has(team)) return true
    const known = directory.get(team)
    return known !== undefined && [...known.members].some((m) => users.has(m))
  }
  const teamOwned = (team: string): boolean => {
    if (whole || listedTeams.has(team)) return true
    const known = directory.get(team)
    return known !== undefined && known.members.size > 0 && [...known.members].every((m) => users.has(m))
  }
  const ownsEntry = (entry: string): boolean => {
    const parsed = parseEntry(entry)
    if (!parsed) return false
    return parsed.kind === 'user' ? parsed.names.every((n) => users.has(n)) : parsed.names.every(teamOwned)
  }
  const reachesEntry = (entry: string): boolean => {
    const parsed = parseEntry(entry)
    if (!parsed) return false
    return parsed.kind === 'user' ? parsed.names.some((n) => users.has(n)) : parsed.names.some(teamReached)
  }
  return {
    whole,
    userNames: people.users,
    covers: (username) => whole || users.has(fold(username)),
    teamsOf(username) {
      const me = fold(username)
      return [...directory.values()].filter((t) => t.members.has(me)).map((t) => t.name)
    },
    reaches: (appliesTo) => whole || appliesTo.some(reachesEntry),
    // A group that names nobody is nobody's: only a whole-server target may change it.
    owns: (appliesTo) => whole || (appliesTo.length > 0 && appliesTo.every(ownsEntry)),
  }
}

/** The scope of a target and what it may change of the allowed tags (its setting, or the default for its kind). */
export function scopeOfTarget(target: TargetPeople & { allowedTagsEdits?: AllowedTagsEdits | undefined }): {
  scope: TargetScope
  edits: AllowedTagsEdits
} {
  const scope = targetScope(target)
  return { scope, edits: target.allowedTagsEdits ?? (scope.whole ? 'own-and-everyone' : 'own') }
}

/** The users a sheet's rows may name: the owners of the Tags timelines the target covers, each with their teams. */
export function knownUsers(
  tagsTimelines: readonly { timelineKey: string; ownerUsername: string; ownerDisplayName: string }[],
  scope: TargetScope,
): KnownUser[] {
  return tagsTimelines
    .filter((t) => scope.covers(t.ownerUsername))
    .map((t) => {
      const teams = scope.teamsOf(t.ownerUsername)
      return {
        username: t.ownerUsername,
        displayName: t.ownerDisplayName,
        tagsTimelineKey: t.timelineKey,
        ...(teams.length > 0 ? { teams } : {}),
      }
    })
}

/** `[a, b]` → users a and b; `{T}` → team T; anything else is neither. */
function parseEntry(entry: string): { kind: 'user' | 'team'; names: string[] } | undefined {
  const t = entry.trim()
  const kind = t.startsWith('[') && t.endsWith(']') ? 'user' : t.startsWith('{') && t.endsWith('}') ? 'team' : undefined
  if (!kind) return undefined
  const names = t.slice(1, -1).split(',').map(fold).filter(Boolean)
  return names.length > 0 ? { kind, names } : undefined
}

function fold(text: string): string {
  return text.trim().toLocaleLowerCase('en-US')
}
