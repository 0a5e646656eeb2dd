/**
 * Shared setup of the fake's own tests: a store with a controllable clock and
 * a real `@googleapis/sheets` client holding a static bearer token.
 */
import { sheets, type sheets_v4 } from '@googleapis/sheets'
import { OAuth2Client } from 'google-auth-library'
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
