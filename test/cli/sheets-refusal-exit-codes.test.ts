/**
 * A refusal is not "run it again". Google's refusals reach the CLI as one error code with an
 * HTTP status; a spreadsheet not shared with the account (403), refused credentials (401) and a wrong
 * spreadsheet id (404) must not exit 1, which a retrying scheduler repeats for ever.
 */
import { expect, test } from 'vitest'
import { toCliFailure } from '../../src/cli/errors.ts'
import { EXIT } from '../../src/cli/exit-codes.ts'
import { HttpError } from '../../src/errors.ts'

const sheetsError = (status: number) =>
  new HttpError({ status, method: 'GET', url: 'https://sheets.googleapis.com/v4/spreadsheets/x', data: undefined, code: 'TS_SHEETS_API' })

test.each([
  [401, EXIT.refused],
  [403, EXIT.refused],
  [404, EXIT.usage],
  [429, EXIT.failure],
  [500, EXIT.failure],
  [503, EXIT.failure],
])('Google Sheets answering %i ends the run with exit %i', (status, exitCode) => {
  expect(toCliFailure(sheetsError(status)).exitCode).toBe(exitCode)
})

test("a Timeline server's 404 is not read as Google's: only the Sheets refusals change their exit", () => {
  const timeline = new HttpError({ status: 404, method: 'GET', url: 'http://server/api/timelines/x', data: undefined })
  expect(toCliFailure(timeline).exitCode).toBe(EXIT.failure)
})
