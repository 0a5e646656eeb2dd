/**
 * Google may work on one Sheets request for up to 180 s: a read that timed out is repeated like after a 503,
 * a write that was sent and timed out is not (Google may still apply it; the write path checks what it did),
 * and the run's spent budget for timed-out requests ends either.
 */
import { describe, expect, test } from 'vitest'
import { RequestTimeoutError, TimeoutBudgetError, type TimeoutLimit } from '../../src/errors.ts'
import {
  classifySheetsFailure,
  describeSheetsFailure,
  readApiFailure,
  sheetsCallKind,
  toSheetsError,
} from '../../src/sheets/google/api-errors.ts'

const ROOT = 'https://sheets.googleapis.com/v4/spreadsheets/abc123'
const context = { now: 0, quotaWindowMs: 60_000 }

const timeout = (limit: TimeoutLimit, method: string, url: string) =>
  new RequestTimeoutError({ limit, method, url, ms: 200_000, setting: 'timeouts.googleWriteMs', service: 'Google Sheets' })

/** What gaxios makes of an error thrown by its fetchImplementation. */
const gaxiosWrapping = (cause: Error, method: string, url: string) =>
  Object.assign(new Error(cause.message, { cause }), { config: { url, method } })

describe('which Sheets calls change the spreadsheet', () => {
  test.each([
    ['GET', `${ROOT}?fields=sheets`, 'read'],
    ['GET', `${ROOT}/values:batchGet?ranges=A`, 'read'],
    ['POST', `${ROOT}/values:batchGetByDataFilter`, 'read'],
    ['POST', `${ROOT}:getByDataFilter`, 'read'],
    ['POST', `${ROOT}/developerMetadata:search`, 'read'],
    ['POST', 'https://oauth2.googleapis.com/token', 'read'],
    ['POST', `${ROOT}:batchUpdate`, 'write'],
    ['POST', `${ROOT}/values:batchUpdate`, 'write'],
    ['POST', `${ROOT}/values/Activities!A1:append`, 'write'],
    ['PUT', `${ROOT}/values/Activities!A1`, 'write'],
    ['POST', 'https://sheets.googleapis.com/v4/spreadsheets', 'write'],
  ] as const)('%s %s: %s', (method, url, kind) => {
    expect(sheetsCallKind(method, url)).toBe(kind)
  })
})

describe('a timeout of a Sheets call', () => {
  test.each(['firstByte', 'idleBody', 'total'] as const)('a read is repeated after a %s timeout', (limit) => {
    const url = `${ROOT}/values:batchGetByDataFilter`
    expect(classifySheetsFailure(gaxiosWrapping(timeout(limit, 'POST', url), 'POST', url), context)).toMatchObject({ retry: true })
  })

  test.each(['firstByte', 'idleBody', 'total'] as const)('a write that was sent is not repeated after a %s timeout', (limit) => {
    const url = `${ROOT}:batchUpdate`
    const wrapped = gaxiosWrapping(timeout(limit, 'POST', url), 'POST', url)
    expect(classifySheetsFailure(wrapped, context)).toEqual({ retry: false })
    // Its answer counts as lost: the write path checks before anything is written again.
    expect(readApiFailure(wrapped)?.networkCode).toBe('ETIMEDOUT')
  })

  test('a write that could not connect is repeated: it never reached Google', () => {
    const url = `${ROOT}:batchUpdate`
    expect(classifySheetsFailure(gaxiosWrapping(timeout('connect', 'POST', url), 'POST', url), context)).toMatchObject({ retry: true })
  })

  test("the caller's kind wins over what the URL says", () => {
    const url = `${ROOT}/values:batchGetByDataFilter`
    const wrapped = gaxiosWrapping(timeout('firstByte', 'POST', url), 'POST', url)
    expect(classifySheetsFailure(wrapped, { ...context, kind: 'write' })).toEqual({ retry: false })
    const write = `${ROOT}:batchUpdate`
    expect(
      classifySheetsFailure(gaxiosWrapping(timeout('firstByte', 'POST', write), 'POST', write), { ...context, kind: 'read' }),
    ).toMatchObject({
      retry: true,
    })
  })

  test("once the run's budget for timed-out requests is spent, even a read is not repeated", () => {
    const url = `${ROOT}?fields=sheets`
    const spent = timeout('firstByte', 'GET', url).afterAttempts(2, '2 requests to it timed out')
    expect(classifySheetsFailure(gaxiosWrapping(spent, 'GET', url), context)).toEqual({ retry: false })
  })

  test('a request not sent for a spent budget is final, never sent, and the user reads why', () => {
    const url = `${ROOT}:batchUpdate`
    const refused = new TimeoutBudgetError({
      service: 'Google Sheets',
      method: 'POST',
      url,
      spent: '3 requests to it timed out',
      last: undefined,
    })
    const wrapped = gaxiosWrapping(refused, 'POST', url)
    expect(classifySheetsFailure(wrapped, context)).toEqual({ retry: false })
    expect(readApiFailure(wrapped)?.networkCode).toBe('UND_ERR_CONNECT_TIMEOUT')
    const error = toSheetsError(wrapped, {
      spreadsheetId: 'abc123',
      operation: 'spreadsheets.batchUpdate',
      principal: undefined,
      secrets: [],
    })
    expect(error).toBe(refused)
    expect(error.message).toBe(`Google Sheets: POST ${url} was not sent: 3 requests to it timed out`)
  })
})

describe('what a retry line says failed', () => {
  test("the transport's message, naming the URL and the limit", () => {
    const url = `${ROOT}?fields=sheets`
    expect(describeSheetsFailure(gaxiosWrapping(timeout('firstByte', 'GET', url), 'GET', url))).toBe(
      `Google Sheets: GET ${url}: no answer within 3.3 min (first-byte timeout, timeouts.googleWriteMs)`,
    )
  })

  test("Google's status and the URL", () => {
    const error = Object.assign(new Error('Service unavailable'), {
      config: { url: `${ROOT}/values:batchGet`, method: 'GET' },
      response: { status: 503, data: { error: { status: 'UNAVAILABLE', message: 'try later' } }, headers: {} },
    })
    expect(describeSheetsFailure(error)).toBe(`GET ${ROOT}/values:batchGet answered 503 UNAVAILABLE`)
  })
})
