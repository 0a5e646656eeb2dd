/**
 * Serves a Sheets fake on a loopback port for end-to-end runs. The same
 * handler serves the API (`rootUrl`), the token endpoint (`tokenUrl`) and the
 * consent page (`authUrl`).
 */
import type { IncomingHttpHeaders } from 'node:http'
import { serveOnLoopback } from '../mount.ts'
import { createSheetsHandler, type SheetsHandlerOptions } from './handler.ts'
import { createSheetsStore, type SheetsStore, type SheetsStoreOptions } from './store.ts'

export interface StartSheetsFakeOptions extends SheetsStoreOptions, SheetsHandlerOptions {
  /** @default 0 (a free port) */
  port?: number
  /** Use this store instead of creating one (the store options are then ignored). */
  store?: SheetsStore
  /** The static token to register and hand back. @default 'static-test-token' */
  staticToken?: string
  /** The scopes the static token carries (full URLs). @default [SPREADSHEETS_SCOPE] */
  staticTokenScopes?: string[]
}

export interface SheetsFake {
  /** Pass as `rootUrl` to `sheets({ version: 'v4', rootUrl })`. Ends with `/`. */
  rootUrl: string
  /** The token endpoint (`POST`), for JWT-bearer, authorization_code and refresh_token grants. */
  tokenUrl: string
  /** Google's Security Token Service token exchange, for an external account's `token_url` (sts.ts). */
  stsUrl: string
  /** The auto-approving consent page, for `OAuth2Client({ endpoints: { oauth2AuthBaseUrl } })`. */
  authUrl: string
  store: SheetsStore
  /** A bearer token the fake accepts (the scopes of `staticTokenScopes`, never expires). */
  staticToken: string
  close(): Promise<void>
}

/**
 * Google's rule for a compressed answer ("Improve performance", Sheets API guides): "In order to receive a
 * gzip-encoded response you must do two things: Set an Accept-Encoding header, and modify your user agent to
 * contain the string gzip." The googleapis client does both.
 */
export function asksForGzip(headers: IncomingHttpHeaders): boolean {
  const accept = String(headers['accept-encoding'] ?? '')
  return /(^|,)\s*gzip\s*(;|,|$)/i.test(accept) && /gzip/i.test(String(headers['user-agent'] ?? ''))
}

/** Starts a Sheets fake on 127.0.0.1. */
export async function startSheetsFake(options: StartSheetsFakeOptions = {}): Promise<SheetsFake> {
  const store = options.store ?? createSheetsStore(options)
  const staticToken = options.staticToken ?? 'static-test-token'
  store.auth.addStaticToken(staticToken, options.staticTokenScopes ? { scopes: options.staticTokenScopes } : {})
  const server = await serveOnLoopback(createSheetsHandler(store, options), {
    ...(options.port === undefined ? {} : { port: options.port }),
    gzipAnswer: asksForGzip,
  })
  return {
    rootUrl: server.url,
    tokenUrl: `${server.url}token`,
    authUrl: `${server.url}o/oauth2/v2/auth`,
    stsUrl: `${server.url}v1/token`,
    store,
    staticToken,
    close: () => server.close(),
  }
}
