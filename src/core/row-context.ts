/**
 * What a row is read and judged against, passed in and never looked up: the users the sheet covers, the
 * server's current activities by Key, the Keys the state knows, the allowed tags and the spreadsheet's zone.
 * It stands apart because the engine builds it, the plans and the undo pass its server activities around
 * without reading rows, and every part of reading a row (users, tags, times, the judgement) takes it.
 */
import type { Activity, AllowedTags } from './activity.ts'
import type { SlashDateOrder } from './cells.ts'
import type { DayStart } from './day-start.ts'

/** A user the bridge knows. */
export interface KnownUser {
  /** As the User column shows it and the server names the owner (`DOMAIN\user`). */
  username: string
  displayName?: string
  /** The user's Tags timeline; undefined when the user has none. */
  tagsTimelineKey: string | undefined
  /** Team names, for allowed tags that apply to `{Team}`. */
  teams?: readonly string[]
}

/** A current server activity and its owner's username. */
export interface ServerActivity {
  activity: Activity
  user: string
}

/** What row mapping needs to know; everything passed in, nothing looked up. */
export interface RowContext {
  /** IANA zone of the spreadsheet. */
  timeZone: string
  /** The hour the target's days start at (ManicTime's day start shift), as seconds after midnight. @default 0 */
  dayStart?: DayStart
  /** How `3/2/2026` reads. @default 'mdy' */
  slashDateOrder?: SlashDateOrder
  /** The users the sheet covers: every user of the server, or a team target's people only. */
  users: readonly KnownUser[]
  /** The sheet covers some users only (a target that lists users or teams): a row for anyone else says so. */
  teamOnly?: boolean
  /** Current server activities by Key. */
  server: ReadonlyMap<string, ServerActivity>
  /** Keys the tool's state knows (a row whose activity the server has since deleted stays valid). */
  baseKeys: Pick<ReadonlySet<string>, 'has'>
  /** Allowed tag combinations; omitted = not checked. */
  allowedTags?: AllowedTags
  /** Tags outside the allowed combinations: a warning (default) or an error. @default 'warning' */
  allowedTagsSeverity?: 'warning' | 'error'
  /** The server's "User can append tags to allowed tags", checked by default in ManicTime. @default true */
  userCanAppend?: boolean
}

/** What reading a row needs: nothing of the server's activities. */
export type ReadContext = Pick<RowContext, 'timeZone' | 'dayStart' | 'slashDateOrder' | 'users' | 'teamOnly'>
