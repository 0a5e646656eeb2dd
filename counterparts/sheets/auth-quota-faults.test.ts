/**
 * What the fake refuses before or around the work of a call, through the real `@googleapis/sheets` client
 * (reference/sheets-api.md §7, §10): missing, unknown and read-only tokens, sharing, the per-user and
 * per-project quotas, injected faults, and the payload limit.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import type { SheetsStore } from './store.ts'
import { failure, type ManualClock, mountSheetsApi, NO_RETRY, SHEETS_ROOT as ROOT, sheetsClient, testStore } from './test-support.ts'

let store: SheetsStore
let clock: ManualClock
const { api, newSpreadsheet, put } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store, clock } = testStore())
})

describe('auth, quota and faults (§7, §10)', () => {
  test('missing token → 401 CREDENTIALS_MISSING; unknown → 401 ACCESS_TOKEN_EXPIRED; read-only scope → 403 on writes', async () => {
    const id = newSpreadsheet()
    const raw = await fetch(`${ROOT}v4/spreadsheets/${id}`)
    expect(raw.status).toBe(401)
    expect(((await raw.json()) as { error: { details: { reason: string }[] } }).error.details[0]!.reason).toBe('CREDENTIALS_MISSING')
    const expired = await failure(sheetsClient(ROOT, 'garbage').spreadsheets.values.get({ spreadsheetId: id, range: 'A1' }))
    expect(expired.status).toBe(401)
    expect(expired.message).toMatch(/^Request had invalid authentication credentials\./)
    expect((expired.response?.data as { error: { status: string; details: unknown[] } }).error).toMatchObject({
      status: 'UNAUTHENTICATED',
      details: [
        {
          reason: 'ACCESS_TOKEN_EXPIRED',
          metadata: { service: 'sheets.googleapis.com', method: 'google.apps.sheets.v4.SpreadsheetsService.GetValues' },
        },
      ],
    })
    store.auth.addStaticToken('reader', { scopes: ['https://www.googleapis.com/auth/spreadsheets.readonly'] })
    const reader = sheetsClient(ROOT, 'reader')
    await reader.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })
    const denied = await failure(
      reader.spreadsheets.values.update(
        { spreadsheetId: id, range: 'A1', valueInputOption: 'RAW', requestBody: { values: [[1]] } },
        NO_RETRY,
      ),
    )
    expect(denied.status).toBe(403)
    expect(denied.message).toBe('Request had insufficient authentication scopes.')
  })

  test('sharing: not shared → 403 on every call (after 404 for an unknown id); a viewer reads, writes get 403', async () => {
    store.auth.addStaticToken('viewer', { subject: 'viewer@test' })
    store.auth.addStaticToken('stranger', { subject: 'stranger@test' })
    const id = store.createSpreadsheet({
      title: 'T',
      sharedWith: { 'static-user@test': 'writer', 'viewer@test': 'reader' },
    }).spreadsheetId
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ addProtectedRange: { protectedRange: { range: { sheetId: 0, startRowIndex: 0, endRowIndex: 1 } } } }] },
    })
    const stranger = sheetsClient(ROOT, 'stranger')
    const hidden = await failure(stranger.spreadsheets.get({ spreadsheetId: id }, NO_RETRY))
    expect(hidden.status).toBe(403)
    expect(hidden.message).toBe('The caller does not have permission')
    expect((hidden.response?.data as { error: { status: string } }).error.status).toBe('PERMISSION_DENIED')
    expect((await failure(stranger.spreadsheets.get({ spreadsheetId: 'no-such-id' }, NO_RETRY))).status).toBe(404)

    const viewer = sheetsClient(ROOT, 'viewer')
    const seen = await viewer.spreadsheets.get({ spreadsheetId: id })
    expect(seen.data.sheets![0]!.protectedRanges![0]!.requestingUserCanEdit).toBeUndefined()
    const owner = await api.spreadsheets.get({ spreadsheetId: id })
    expect(owner.data.sheets![0]!.protectedRanges![0]!.requestingUserCanEdit).toBe(true)
    const write = await failure(
      viewer.spreadsheets.values.update(
        { spreadsheetId: id, range: 'A1', valueInputOption: 'RAW', requestBody: { values: [[1]] } },
        NO_RETRY,
      ),
    )
    expect(write.status).toBe(403)
    expect(write.message).toBe('The caller does not have permission')
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })).data.values).toBeUndefined()
  })

  test('60 reads a minute per user, then 429 with the exact body; a new minute refills; writes have their own bucket', async () => {
    const id = newSpreadsheet()
    for (let i = 0; i < 60; i++) await api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })
    const limited = await failure(api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' }, NO_RETRY))
    expect(limited.status).toBe(429)
    expect(limited.message).toBe(
      "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:603366585132'.",
    )
    expect(
      (limited.response?.data as { error: { status: string; details: { metadata?: Record<string, string> }[] } }).error.details[0]!
        .metadata,
    ).toEqual({
      quota_limit_value: '60',
      service: 'sheets.googleapis.com',
      consumer: 'projects/603366585132',
      quota_unit: '1/min/{project}/{user}',
      quota_location: 'global',
      quota_metric: 'sheets.googleapis.com/read_requests',
      quota_limit: 'ReadRequestsPerMinutePerUser',
    })
    // A batch is one request, and writes count in their own bucket.
    await api.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'RAW',
        data: [
          { range: 'A1', values: [[1]] },
          { range: 'B1', values: [[2]] },
        ],
      },
    })
    // developerMetadata.search is a read.
    const search = await failure(api.spreadsheets.developerMetadata.search({ spreadsheetId: id, requestBody: { dataFilters: [] } }))
    expect(search.status).toBe(429)
    clock.advance(60_000)
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })
    expect(store.stats()).toMatchObject({
      reads: 63,
      writes: 1,
      quotaRejections: 2,
      byMethod: { GetValues: 62, BatchUpdateValues: 1, SearchDeveloperMetadata: 1 },
    })
  })

  test('the project bucket names the per-minute limit without "per user"', async () => {
    ;({ store, clock } = testStore({ quota: { writePerProject: 1 } }))
    const id = newSpreadsheet()
    await put(id, 'A1', [[1]])
    const error = await failure(put(id, 'A1', [[2]]))
    expect(error.message).toBe(
      "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute' of service 'sheets.googleapis.com' for consumer 'project_number:603366585132'.",
    )
  })

  test('injected 503 after the write is applied: the data is there although the call failed', async () => {
    const id = newSpreadsheet()
    store.faults.inject({ status: 503, method: 'AppendValues', applyThenFail: true })
    const error = await failure(
      api.spreadsheets.values.append({ spreadsheetId: id, range: 'Sheet1', valueInputOption: 'RAW', requestBody: { values: [['once']] } }),
    )
    expect(error.status).toBe(503)
    expect(error.message).toBe('The service is currently unavailable.')
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1' })).data.values).toEqual([['once']])
    expect(store.stats().faultsInjected).toBe(1)
  })

  test('injected 429 on a PUT is retried by the client (3 retries) and then succeeds', async () => {
    const id = newSpreadsheet()
    store.faults.inject({ status: 429, times: 2, method: 'UpdateValues' })
    const res = await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['x']] },
    })
    expect(res.status).toBe(200)
    expect(store.stats().byMethod.UpdateValues).toBe(3)
    store.faults.inject({ status: 500, method: 'BatchUpdateSpreadsheet' })
    const post = await failure(
      api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [{ clearBasicFilter: { sheetId: 0 } }] } }),
    )
    expect(post.status).toBe(500)
    expect(store.stats().byMethod.BatchUpdateSpreadsheet).toBe(1)
  })

  test('a body over 10 MiB is refused', async () => {
    ;({ store, clock } = testStore({ maxPayloadBytes: 1000 }))
    const id = newSpreadsheet()
    const error = await failure(put(id, 'A1', [['x'.repeat(2000)]]))
    expect(error.message).toBe('Request payload size exceeds the limit: 1000 bytes.')
  })
})
