/**
 * Matching a row's User cell to a user the sheet covers: by username or an unshared display name, the owner of
 * the Key's timeline for an existing activity, and in a manager's words why a name is not one (unknown, without
 * a Tags timeline, another user than the activity's owner). It stands apart because it has its own index of the
 * users and its own memo per read: a sheet's User cells repeat a few hundred names over many thousand rows.
 */
import type { CellValue } from './sheet.ts'
import { ACTIVITY_COLUMN } from './columns.ts'
import { cellText, excerpt, isErrorValue, isFormula } from './cells.ts'
import type { KnownUser } from './row-context.ts'
import { NO_PROBLEMS, problem, type RowProblem } from './row-outcome.ts'

const C = ACTIVITY_COLUMN

/** What a User cell says: the user, or the problems (frozen: rows share it). */
export interface UserCell {
  user: (KnownUser & { tagsTimelineKey: string }) | undefined
  problems: readonly RowProblem[]
}

/**
 * `readUser` once per User text and Key timeline a memo has seen: a sheet's User cells repeat a few hundred names.
 * What a cell says depends on its text alone (a number or a tick reads as the text it shows, and a formula or an
 * error value is text), on the Key's timeline, and on the users, which one read does not change.
 */
export function userCellOf(
  value: CellValue | undefined,
  key: { timelineKey: string } | undefined,
  users: readonly KnownUser[],
  memo: { users: Map<string, Map<string, UserCell>> } | undefined,
  teamOnly = false,
): UserCell {
  if (!memo) return readUserCell(value, key, users, teamOnly)
  // A Key's timeline is never empty (`parseActivityKey`), so '' stands for a row without one.
  const timeline = key ? key.timelineKey : ''
  let byText = memo.users.get(timeline)
  if (!byText) {
    byText = new Map()
    memo.users.set(timeline, byText)
  }
  const text = cellText(value)
  let found = byText.get(text)
  if (!found) {
    found = readUserCell(value, key, users, teamOnly)
    byText.set(text, found)
  }
  return found
}

function readUserCell(
  value: CellValue | undefined,
  key: { timelineKey: string } | undefined,
  users: readonly KnownUser[],
  teamOnly: boolean,
): UserCell {
  const problems: RowProblem[] = []
  const user = readUser(value, key, users, teamOnly, problems)
  if (problems.length === 0) return { user, problems: NO_PROBLEMS }
  for (const p of problems) Object.freeze(p)
  return { user, problems: Object.freeze(problems) }
}

function readUser(
  value: CellValue | undefined,
  key: { timelineKey: string } | undefined,
  users: readonly KnownUser[],
  teamOnly: boolean,
  out: RowProblem[],
): (KnownUser & { tagsTimelineKey: string }) | undefined {
  if (isFormula(value)) {
    out.push(problem('formula', C.user, `holds a formula (${excerpt(value)}); type the user name`))
    return undefined
  }
  if (isErrorValue(value)) {
    out.push(
      problem(
        'error-value',
        C.user,
        `holds the spreadsheet error ${cellText(value).trim()}; type the user name${key ? ', or leave it empty' : ''}`,
      ),
    )
    return undefined
  }
  const typed = cellText(value).trim()
  const owner = key ? usersIndex(users).byTimeline.get(key.timelineKey) : undefined
  if (key) {
    if (!owner || owner.tagsTimelineKey === undefined) {
      out.push(
        problem(
          teamOnly ? 'outside-target' : 'unknown-user',
          C.user,
          `the owner of this activity's timeline is not one of the users this sheet covers; nothing was sent`,
        ),
      )
      return undefined
    }
    if (typed !== '' && findUser(typed, users) !== owner) {
      out.push(
        problem(
          'user-changed',
          C.user,
          `"${excerpt(typed)}" differs from the activity's owner ${owner.username}; an activity cannot move to another user — add a new row for ${excerpt(typed)} and tick Delete on this one`,
        ),
      )
      return undefined
    }
    // The user itself, not a copy per row: nothing changes a row's user.
    return owner as KnownUser & { tagsTimelineKey: string }
  }
  if (typed === '') {
    out.push(problem('missing-value', C.user, 'is empty; type the user this time belongs to'))
    return undefined
  }
  const user = findUser(typed, users)
  if (!user && teamOnly) {
    const names = users.map((u) => u.username)
    const shown = names.length > 6 ? `${names.slice(0, 6).join(', ')} and ${names.length - 6} more` : names.join(', ')
    out.push(
      problem(
        'outside-target',
        C.user,
        `"${excerpt(typed)}" is not one of the people this sheet covers (${shown || 'nobody with a Tags timeline'}); nothing was sent — add their time in a sheet that covers them`,
      ),
    )
    return undefined
  }
  if (!user) {
    const some = users
      .slice(0, 3)
      .map((u) => u.username)
      .join(', ')
    out.push(
      problem(
        'unknown-user',
        C.user,
        `"${excerpt(typed)}" is not a known user; use a user name as the server writes it${some ? ` (e.g. ${some})` : ''}`,
      ),
    )
    return undefined
  }
  if (user.tagsTimelineKey === undefined) {
    out.push(
      problem(
        'user-without-tags-timeline',
        C.user,
        `${user.username} has no Tags timeline on the server, so time cannot be added for them; ask the operator to enable tagging for this user`,
      ),
    )
    return undefined
  }
  return user as KnownUser & { tagsTimelineKey: string }
}

function findUser(typed: string, users: readonly KnownUser[]): KnownUser | undefined {
  const t = typed.toLocaleLowerCase('en-US')
  const index = usersIndex(users)
  const named = index.byDisplayName.get(t)
  return index.byUsername.get(t) ?? (named?.length === 1 ? named[0] : undefined)
}

interface UsersIndex {
  /** The first user of each timeline, as `users.find` would pick it. */
  byTimeline: Map<string | undefined, KnownUser>
  /** Lower-cased username → the first user with it. */
  byUsername: Map<string, KnownUser>
  /** Lower-cased display name → every user with it (a name two users share names neither). */
  byDisplayName: Map<string, KnownUser[]>
}

/** The users looked up by timeline and name, built once per list: every row of a sheet looks its user up. */
export function usersIndex(users: readonly KnownUser[]): UsersIndex {
  let index = usersIndexes.get(users)
  if (index) return index
  index = { byTimeline: new Map(), byUsername: new Map(), byDisplayName: new Map() }
  for (const u of users) {
    if (!index.byTimeline.has(u.tagsTimelineKey)) index.byTimeline.set(u.tagsTimelineKey, u)
    const name = u.username.toLocaleLowerCase('en-US')
    if (!index.byUsername.has(name)) index.byUsername.set(name, u)
    if (u.displayName === undefined) continue
    const display = u.displayName.toLocaleLowerCase('en-US')
    const same = index.byDisplayName.get(display)
    if (same) same.push(u)
    else index.byDisplayName.set(display, [u])
  }
  usersIndexes.set(users, index)
  return index
}

const usersIndexes = new WeakMap<readonly KnownUser[], UsersIndex>()
