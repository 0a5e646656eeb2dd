/**
 * Shared setup of the fake's own tests: a store with a controllable clock,
 * a real `@googleapis/sheets` client holding a static bearer token, and the
 * fake mounted in msw with the shortcuts the API tests use.
 */
import { sheets, type sheets_v4 } from '@googleapis/sheets'
import type { GaxiosError } from 'gaxios'
import { OAuth2Client } from 'google-auth-library'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll } from 'vitest'
import { mswHandlerFor } from '../mount.ts'
import { createSheetsHandler } from './handler.ts'
import { createSheetsStore, type SheetsStore, type SheetsStoreOptions } from './store.ts'

/** A clock tests move by hand. */
export interface ManualClock {
  now(): number
  advance(ms: number): void
}

/** A manual clock starting at a fixed instant. */
export function manualClock(start = Date.UTC(2026, 2, 2, 9, 0, 0)): ManualClock {
  let t = start
  return { now: () => t, advance: (ms) => void (t += ms) }
}

/** An OAuth2Client that always sends `token` and never refreshes. */
export function staticAuth(token: string): OAuth2Client {
  const auth = new OAuth2Client()
  auth.setCredentials({ access_token: token, expiry_date: Date.now() + 365 * 86_400_000 })
  return auth
}

/** The real Sheets client pointed at `rootUrl`. */
export function sheetsClient(rootUrl: string, token: string): sheets_v4.Sheets {
  return sheets({ version: 'v4', auth: staticAuth(token), rootUrl })
}

/** A store for tests: static token `test-token`, manual clock, seed 7. */
export function testStore(options: SheetsStoreOptions = {}): { store: SheetsStore; clock: ManualClock } {
  const clock = manualClock()
  const store = createSheetsStore({ now: clock.now, seed: 7, staticTokens: ['test-token'], ...options })
  return { store, clock }
}

/** Where the fake answers when mounted in msw by `mountSheetsApi`. */
export const SHEETS_ROOT = 'http://sheets.test/'

/** Call options that hand a failure back at once, as Google sent it, instead of retrying. */
export const NO_RETRY = { retry: false } as const

/** The error `promise` fails with; throws when it succeeds. */
export async function failure(promise: Promise<unknown>): Promise<GaxiosError> {
  try {
    await promise
  } catch (error) {
    return error as GaxiosError
  }
  throw new Error('expected the call to fail')
}

/** A sheet a spreadsheet of `mountSheetsApi(…).newSpreadsheet` starts with. */
export interface NewSheet {
  title: string
  sheetId: number
  rowCount?: number
  columnCount?: number
}

/**
 * Mounts the fake in msw for the test file that calls it (at its top level), listening from the first test
 * to the last. Each request goes to the store `storeOf` returns at that moment, so a test may swap in a
 * store built with other options.
 */
export function mountSheetsApi(storeOf: () => SheetsStore) {
  const server = setupServer(mswHandlerFor(SHEETS_ROOT, (request) => createSheetsHandler(storeOf())(request)))
  // onUnhandledFrame is msw 3's name for onUnhandledRequest.
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
  afterAll(() => server.close())
  const api = sheetsClient(SHEETS_ROOT, 'test-token')
  return {
    /** The real client, holding the token `test-token`. */
    api,
    /** A spreadsheet titled `T` in the current store; one sheet `Sheet1` (id 0) by default. */
    newSpreadsheet: (sheets: NewSheet[] = [{ title: 'Sheet1', sheetId: 0 }]): string =>
      storeOf().createSpreadsheet({ title: 'T', sheets }).spreadsheetId,
    /** values.update with `values`, RAW unless told, without retries. */
    put: (spreadsheetId: string, range: string, values: unknown[][], valueInputOption = 'RAW') =>
      api.spreadsheets.values.update({ spreadsheetId, range, valueInputOption, requestBody: { values } }, NO_RETRY),
  }
}
