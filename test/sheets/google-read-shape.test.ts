/**
 * A tab read's answer (values.batchGet) as the backend takes it: rows of cells, converted in one pass, an empty
 * cell as null and a trimmed tab as no rows; an answer whose values are not rows of cells is refused as a shape
 * this version does not understand (TS_RESPONSE_INVALID), never read as some other sheet.
 */
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isTimelineSheetsError } from '../../src/errors.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'

const ROOT = 'http://sheets.test/'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

/** A backend whose every batchGet is answered with `answer`. */
function answering(answer: unknown) {
  server.resetHandlers(http.get(`${ROOT}v4/spreadsheets/sid/values:batchGet`, () => HttpResponse.json(answer as Record<string, unknown>)))
  return createGoogleSpreadsheet({ spreadsheetId: 'sid', auth: signInWithStaticToken('t'), rootUrl: ROOT, retry: { limit: 0 } })
}

async function refusal(answer: unknown): Promise<unknown> {
  try {
    await answering(answer).read(['Activities'])
  } catch (error) {
    return error
  }
  throw new Error('expected the read to be refused')
}

describe('the values of a tab read', () => {
  it('rows of cells: an empty cell is null, other values as they came; no values at all is a tab without rows', async () => {
    const read = await answering({
      valueRanges: [{ range: "'Activities'!A1:C4", values: [['User', 'Notes', 'Key'], ['ann', '', 'k/1'], [], [7, true, 'k/2']] }],
    }).read(['Activities'])
    expect(read.tabs['Activities']).toMatchObject({
      header: ['User', 'Notes', 'Key'],
      rows: [['ann', null, 'k/1'], [], [7, true, 'k/2']],
      gridRowCount: 4,
    })
    const empty = await answering({ valueRanges: [{ range: "'Activities'!A1:C1000" }] }).read(['Activities'])
    expect(empty.tabs['Activities']).toMatchObject({ header: [], rows: [], gridRowCount: 1000 })
  })

  it('values that are not rows of cells are refused: TS_RESPONSE_INVALID, naming the spreadsheet', async () => {
    for (const values of [{ 0: ['a'] }, 'rows', [['User'], 'ann'], [['User'], { 0: 'ann' }], [null]]) {
      const error = await refusal({ valueRanges: [{ range: "'Activities'!A1:C4", values }] })
      expect(isTimelineSheetsError(error) && error.code, JSON.stringify(values)).toBe('TS_RESPONSE_INVALID')
      expect((error as Error).message).toContain('spreadsheet sid')
    }
    expect(isTimelineSheetsError(await refusal({ valueRanges: [] })) && 'refused').toBe('refused')
  })
})
