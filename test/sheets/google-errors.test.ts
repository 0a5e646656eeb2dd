import { describe, expect, it } from 'vitest'
import { HttpError, TimelineSheetsError } from '../../src/errors.ts'
import { classifySheetsFailure, quotaWaitMs, readApiFailure, toSheetsError } from '../../src/sheets/google/api-errors.ts'

/** The shape of a GaxiosError as googleapis throws it. */
function gaxiosError(status: number, body: unknown, extra: { headers?: Headers; url?: string } = {}) {
  const error = new Error((body as { error?: { message?: string } })?.error?.message ?? 'failed') as Error & Record<string, unknown>
  error.name = 'GaxiosError'
  error.status = status
  error.config = {
    url: extra.url ?? 'https://sheets.googleapis.com/v4/spreadsheets/sid/values:batchGet',
    method: 'GET',
    headers: { Authorization: 'Bearer ya29.secret-token' },
  }
  error.response = { status, data: body, headers: extra.headers ?? new Headers() }
  return error
}

function googleBody(code: number, status: string, message: string, reason?: string) {
  return {
    error: { code, message, status, ...(reason ? { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason }] } : {}) },
  }
}

const context = {
  spreadsheetId: 'sid123',
  operation: 'values.batchGet',
  principal: 'bridge@proj.iam.gserviceaccount.com',
  secrets: ['ya29.secret-token'],
}

describe('quotaWaitMs', () => {
  it('waits until the end of the current quota window plus a little jitter', () => {
    expect(quotaWaitMs(60_000 * 10 + 15_000, 60_000, () => 0)).toBe(45_000)
    expect(quotaWaitMs(60_000 * 10 + 15_000, 60_000, () => 1)).toBe(48_000)
    expect(quotaWaitMs(1_250, 500, () => 0)).toBe(250)
  })

  it('never waits zero at a window boundary', () => {
    expect(quotaWaitMs(120_000, 60_000, () => 0)).toBe(60_000)
  })
})

describe('classifySheetsFailure', () => {
  const at = { now: 30_000, quotaWindowMs: 60_000, random: () => 0 }

  it('holds a 429 until the quota window has passed', () => {
    const verdict = classifySheetsFailure(gaxiosError(429, googleBody(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded')), at)
    expect(verdict).toEqual({ retry: true, reason: 'Google Sheets quota exceeded (429)', retryAfterMs: 30_000 })
  })

  it('honours a longer Retry-After on a 429', () => {
    const verdict = classifySheetsFailure(gaxiosError(429, {}, { headers: new Headers({ 'retry-after': '90' }) }), at)
    expect(verdict).toMatchObject({ retry: true, retryAfterMs: 90_000 })
  })

  it('backs off on 5xx, 408 and dropped connections', () => {
    for (const status of [500, 502, 503, 504, 408]) {
      expect(classifySheetsFailure(gaxiosError(status, {}), at)).toMatchObject({ retry: true })
    }
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', config: {} })
    expect(classifySheetsFailure(reset, at)).toEqual({ retry: true, reason: 'network error ECONNRESET' })
  })

  it('retries a token endpoint 5xx but not our own final errors', () => {
    const token = new HttpError({ status: 503, method: 'POST', url: 'http://127.0.0.1/token', data: {}, code: 'TS_AUTH_FAILED' })
    expect(classifySheetsFailure(token, at)).toMatchObject({ retry: true })
    expect(classifySheetsFailure(new TimelineSheetsError('TS_AUTH_FAILED', 'no'), at)).toEqual({ retry: false })
    // Already retried inside: an outer loop must not multiply the attempts.
    const final = new HttpError({ status: 503, method: 'GET', url: 'http://sheets.test/', data: {}, code: 'TS_SHEETS_API' })
    expect(classifySheetsFailure(final, at)).toEqual({ retry: false })
  })

  it('does not retry 400, 401, 403, 404 or unknown errors', () => {
    for (const status of [400, 401, 403, 404]) expect(classifySheetsFailure(gaxiosError(status, {}), at)).toEqual({ retry: false })
    expect(classifySheetsFailure(new TypeError('bug'), at)).toEqual({ retry: false })
  })
})

describe('toSheetsError', () => {
  it('404: says the id is wrong or the spreadsheet is not shared with the service account', () => {
    const error = toSheetsError(gaxiosError(404, googleBody(404, 'NOT_FOUND', 'Requested entity was not found.')), context)
    expect(error).toBeInstanceOf(HttpError)
    expect(error.code).toBe('TS_SHEETS_API')
    expect((error as HttpError).status).toBe(404)
    expect(error.message).toBe(
      'Google Sheets answered 404 NOT_FOUND for spreadsheet sid123 (values.batchGet): Requested entity was not found.',
    )
    expect(error.hint).toContain('sid123')
    expect(error.hint).toContain('bridge@proj.iam.gserviceaccount.com')
  })

  it('403: says to share the spreadsheet with the account as editor', () => {
    const error = toSheetsError(gaxiosError(403, googleBody(403, 'PERMISSION_DENIED', 'The caller does not have permission')), context)
    expect(error.hint).toBe('Share the spreadsheet with bridge@proj.iam.gserviceaccount.com as editor.')
  })

  it('403 variants: API disabled, scope missing', () => {
    expect(toSheetsError(gaxiosError(403, googleBody(403, 'PERMISSION_DENIED', 'disabled', 'SERVICE_DISABLED')), context).hint).toContain(
      'Enable the Google Sheets API',
    )
    expect(
      toSheetsError(gaxiosError(403, googleBody(403, 'PERMISSION_DENIED', 'scopes', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT')), context).hint,
    ).toContain('scope')
  })

  it('401, 429, 5xx and 400 each get a hint', () => {
    expect(toSheetsError(gaxiosError(401, googleBody(401, 'UNAUTHENTICATED', 'bad')), context).hint).toContain('credentials')
    expect(toSheetsError(gaxiosError(429, googleBody(429, 'RESOURCE_EXHAUSTED', 'quota')), context).hint).toContain('quota')
    expect(
      toSheetsError(gaxiosError(503, googleBody(503, 'UNAVAILABLE', 'The service is currently unavailable.')), context).hint,
    ).toContain('safe to repeat')
    expect(toSheetsError(gaxiosError(400, googleBody(400, 'INVALID_ARGUMENT', 'Unable to parse range: X')), context).message).toContain(
      'Unable to parse range: X',
    )
  })

  it('never carries the token: not in the message, not as cause', () => {
    const leaky = gaxiosError(401, googleBody(401, 'UNAUTHENTICATED', 'token ya29.secret-token refused, Bearer abc.def'))
    const error = toSheetsError(leaky, context)
    expect(error.message).not.toContain('ya29.secret-token')
    expect(error.message).not.toContain('abc.def')
    expect(error.cause).toBeUndefined()
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('secret-token')
  })

  it('network failures become TS_NETWORK; our own errors pass through', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', config: {} })
    expect(toSheetsError(reset, context).code).toBe('TS_NETWORK')
    const own = new TimelineSheetsError('TS_AUTH_FAILED', 'refused')
    expect(toSheetsError(own, context)).toBe(own)
    expect(toSheetsError(new Error('odd'), context).code).toBe('TS_SHEETS_API')
  })

  it('reads Google error details', () => {
    const failure = readApiFailure(gaxiosError(403, googleBody(403, 'PERMISSION_DENIED', 'x', 'SERVICE_DISABLED')))
    expect(failure).toMatchObject({ status: 403, googleStatus: 'PERMISSION_DENIED', reason: 'SERVICE_DISABLED' })
    expect(readApiFailure('nope')).toBeUndefined()
  })
})
