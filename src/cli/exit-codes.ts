/**
 * Exit codes, documented in `--help`. A scheduler can tell apart a run to
 * simply retry (1), a run that needs a person (3, 4, 6, 7, 8) and a mistake in the
 * call itself (2).
 */
export const EXIT = {
  /** Everything done. */
  success: 0,
  /** The run failed and changed nothing it could not finish later; safe to run again. */
  failure: 1,
  /** Bad command line or config. */
  usage: 2,
  /** Done, but some rows need a person: invalid rows, conflicts (see Status and the summary). */
  partial: 3,
  /** A safety guard stopped the run before any write; its message names the flag that overrides it. */
  guard: 4,
  /** Another run of the same target holds the lock. */
  locked: 5,
  /** A sign-in was refused or the account lacks a permission: retrying repeats the refusal (and may lock the account). */
  refused: 6,
  /** State is damaged or belongs to another server; the message says how to recover. */
  critical: 7,
  /**
   * The workbook is open in another program (Excel, LibreOffice) that keeps it from being replaced, after a few
   * tries; nothing is lost. Not 1: running again soon repeats the refusal until a person closes the file.
   */
  workbookOpen: 8,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  failed; nothing is lost, run it again (the next run resumes)
  2  bad command line or config (a spreadsheet id Google does not know, too)
  3  partly done: some rows need a person (invalid rows, conflicts; see Status and the summary)
  4  a safety guard stopped the run before any write (the message names the flag that overrides it)
  5  another run of the same target holds the lock
  6  a sign-in was refused or the account lacks a permission (a spreadsheet not shared with it, too):
     fix the credentials or rights, do not retry
  7  state is damaged or belongs to another server (the message says how to recover)
  8  the workbook is open in Excel or LibreOffice, which keeps it from being replaced (the message
     says who has it open): nothing is lost; close it, then run again`
