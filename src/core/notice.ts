/**
 * What the `notify` webhook is told, and when. A target's failure (an error, a safety guard, rows left
 * unfinished) is told once; the same failure again is told again only after `repeatAfterMs`, so a watch failing
 * every 2 minutes sends one message, not 30 an hour. The first good run after a told failure is told once as
 * "recovered". What was last told lives in the target's state folder, so a restarted process or the next nightly
 * run still knows.
 *
 * A notice holds the target, the error code, its message and hint, the run id and the command that shows more;
 * never a row: the messages it carries are the run's own, which name counts and settings, and it cuts them short.
 */
import { isFailure, isSuccess, type TargetRunOutcome } from './run-outcome.ts'

/** The last failure a notice told, as the target's state folder keeps it. */
export interface ToldFailure {
  code: string
  runId: string | null
  /** When it was told (ISO). */
  at: string
}

export interface Notice {
  event: 'failed' | 'recovered'
  target: string
  /** The failure's code; for `recovered`, the code of the failure it recovered from. */
  code: string
  message: string
  hint: string | null
  runId: string | null
  at: string
  /** The command that shows more (the run's lines are in the job's log under the run id). */
  seeMore: string
}

export interface NoticeDecision {
  /** What to send now, if anything. */
  notice: Notice | undefined
  /** What the state folder should hold afterwards (undefined: no failure outstanding). */
  told: ToldFailure | undefined
}

/** A message or hint this long at most: enough for what the tool says, never a dump of what it read. */
const MAX_TEXT = 600

/** @param repeatAfterMs the same failure is told again after this long (a nightly job failing each night). */
export function decideNotice(told: ToldFailure | undefined, outcome: TargetRunOutcome, repeatAfterMs: number): NoticeDecision {
  const at = outcome.endedAt.toISOString()
  const seeMore = `timeline-sheets doctor --target ${outcome.target}; the job's log lines of run ${outcome.runId ?? '(none)'}; the Sync log tab`
  if (isFailure(outcome.kind)) {
    const code = outcome.error?.code ?? 'TS_INTERNAL'
    const again = told !== undefined && told.code === code && outcome.endedAt.getTime() - Date.parse(told.at) < repeatAfterMs
    if (again) return { notice: undefined, told }
    return {
      notice: {
        event: 'failed',
        target: outcome.target,
        code,
        message: cut(outcome.error?.message ?? `The run ended ${outcome.kind}.`),
        hint: outcome.error?.hint ? cut(outcome.error.hint) : null,
        runId: outcome.runId ?? null,
        at,
        seeMore,
      },
      told: { code, runId: outcome.runId ?? null, at },
    }
  }
  if (told !== undefined && isSuccess(outcome.kind)) {
    return {
      notice: {
        event: 'recovered',
        target: outcome.target,
        code: told.code,
        message: `Recovered: this run finished (${outcome.kind}) after the failure ${told.code}${told.runId ? ` of run ${told.runId}` : ''}.`,
        hint: null,
        runId: outcome.runId ?? null,
        at,
        seeMore,
      },
      told: undefined,
    }
  }
  // A locked run says nothing either way: the run that holds the lock decides.
  return { notice: undefined, told }
}

/**
 * The webhook's JSON body: `text` is what Slack's and Microsoft Teams' incoming webhooks show; the other fields are
 * for a receiver of one's own, which gets them all under `timelineSheets`.
 */
export function noticeBody(notice: Notice): { text: string; timelineSheets: Notice } {
  const head =
    notice.event === 'failed'
      ? `timeline-sheets: target ${notice.target} failed (${notice.code}): ${notice.message}`
      : `timeline-sheets: target ${notice.target} recovered from ${notice.code}.`
  const lines = [
    head,
    ...(notice.hint ? [notice.hint] : []),
    `Run ${notice.runId ?? '(none)'} at ${notice.at}. See more: ${notice.seeMore}.`,
  ]
  return { text: lines.join('\n'), timelineSheets: notice }
}

function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`
}
