/** What `restore-approved` refuses before it signs in: it changes the server, so it asks first or needs --yes. */
import { describe, expect, it } from 'vitest'
import { runRestoreApprovedCommand } from '../../src/cli/commands/restore-approved.ts'
import { TimelineSheetsError } from '../../src/errors.ts'

const globals = { config: '/nonexistent/config.json', json: false, verbose: false, quiet: true }

describe('restore-approved refuses', () => {
  it('to write without a terminal to ask and without --yes, naming the dry run to look at first', async () => {
    const error = await runRestoreApprovedCommand(globals, { user: 'ann', period: '2026-W45', dryRun: false, yes: false }).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_USAGE')
    expect((error as TimelineSheetsError).hint).toBe(
      'Look at the plan first with: timeline-sheets restore-approved --user ann --period 2026-W45 --dry-run; then pass --yes to apply it.',
    )
  })
})
