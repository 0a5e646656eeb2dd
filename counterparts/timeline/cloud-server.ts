/**
 * The whole cloud on loopback: the OpenID Provider (`oidc.ts`), and the cloud
 * API origin (`GET /v1/profile` → a `serverUrl` with a path, `/acct-1/`) with
 * the seeded reference Timeline server behind it, guarded by the JWT
 * authenticator. For end-to-end runs of `login` and `export`, the auth tests
 * and `npm run reference-server -- --cloud`.
 */
import { serveOnLoopback, type LoopbackServer } from '../mount.ts'
import { createAccessTokenVerifier, createCloudApiHandler, createCloudAuthenticator } from './cloud.ts'
import { createFaultInjector, type FaultInjector, type FaultSettings } from './faults.ts'
import { createTimelineHandler } from './handler.ts'
import { startOpenIdProvider, type OpenIdClient, type OpenIdProvider, type TokenRequestRecord } from './oidc.ts'
import { seedStore, STAFF, type SeedOptions, type SeedResult } from './seed.ts'
import { createTimelineStore, type TimelineStore, type TimelineStoreOptions } from './store.ts'

export interface CloudReferenceServerOptions extends TimelineStoreOptions {
  /** Port of the cloud API origin. @default 0 (a free port) */
  port?: number
  /** Port of the OpenID Provider. @default 0 (a free port) */
  issuerPort?: number
  /** Seed data, as `startReferenceServer`'s `data`; `false` starts empty. @default {} (5 users × 14 days) */
  data?: SeedOptions | false
  /**
   * Store user the provider's auto-approved login signs in as (the token's `sub`).
   * Added as a content editor when the store does not hold it.
   * @default the seeded transfer account, `transfer@example.com` (`EXAMPLE\transfer` with directory users)
   */
  account?: string
  /** Path of the account's data on the API origin. @default '/acct-1/' */
  accountPath?: string
  /** Access-token lifetime in seconds. @default 3600 */
  accessTokenTtl?: number
  /** Refresh-token lifetime in seconds. @default 14 days */
  refreshTokenTtl?: number
  /** Whether the callback carries `iss`; see `OpenIdProviderOptions`. @default true */
  issuerInCallback?: boolean
  /** What the token response's `scope` names; see `OpenIdProviderOptions`. @default 'granted' */
  tokenResponseScope?: 'granted' | 'access-token'
  /** Initial faults of the data server; change them later through `faults`. */
  faults?: FaultSettings
  /** Seed of the fault PRNG. @default 7 */
  faultSeed?: number
}

export interface CloudReferenceServer {
  /** The OpenID Provider's issuer, `http://127.0.0.1:PORT` — the config's `authority`. */
  readonly issuer: string
  /** The cloud API origin without a trailing slash — the config's `apiUrl` (profile at `/v1/profile`). */
  readonly apiUrl: string
  /** What the profile answers: `${apiUrl}${accountPath}`; the data API entry is `${serverUrl}api`. */
  readonly serverUrl: string
  /** Registered clients: `post` uses client_secret_post, `basic` client_secret_basic. */
  readonly clients: { post: OpenIdClient; basic: OpenIdClient }
  /** The store user who signs in (a content editor, so it sees and may change everyone's tags). */
  readonly account: string
  readonly store: TimelineStore
  readonly faults: FaultInjector
  readonly seed: SeedResult | undefined
  /** Every POST to the provider's token endpoint, in order. */
  readonly tokenRequests: TokenRequestRecord[]
  /** `error_detail` of every failed grant, in order. */
  readonly grantErrors: string[]
  readonly op: OpenIdProvider
  readonly api: LoopbackServer
  close(): Promise<void>
}

/**
 * Starts the provider and the API origin; resolve `close()` when done.
 *
 * @example
 * const cloud = await startCloudReferenceServer({ data: { users: 3, days: 7 } })
 * // timeline.auth: { mode: 'cloud', authority: cloud.issuer, apiUrl: cloud.apiUrl, clientId: cloud.clients.post.clientId }
 */
export async function startCloudReferenceServer(options: CloudReferenceServerOptions = {}): Promise<CloudReferenceServer> {
  const accountPath = options.accountPath ?? '/acct-1/'
  const store = createTimelineStore(options)
  const seed = options.data === false ? undefined : seedStore(store, options.data ?? {})
  const account =
    options.account ??
    seed?.transfer?.username ??
    (options.data && options.data.directoryUsers ? `EXAMPLE\\${STAFF.transfer.local}` : `${STAFF.transfer.local}@example.com`)
  if (!store.user(account)) store.addUser({ username: account, password: STAFF.transfer.password, role: 'contentEditor' })

  const op = await startOpenIdProvider({
    vendor: store.vendor.token,
    accountId: account,
    ...(options.issuerPort === undefined ? {} : { port: options.issuerPort }),
    ...(options.accessTokenTtl === undefined ? {} : { accessTokenTtl: options.accessTokenTtl }),
    ...(options.refreshTokenTtl === undefined ? {} : { refreshTokenTtl: options.refreshTokenTtl }),
    ...(options.issuerInCallback === undefined ? {} : { issuerInCallback: options.issuerInCallback }),
    ...(options.tokenResponseScope === undefined ? {} : { tokenResponseScope: options.tokenResponseScope }),
  })
  let api: LoopbackServer
  const faults = createFaultInjector(options.faults ?? {}, { seed: options.faultSeed ?? 7 })
  try {
    const verify = createAccessTokenVerifier({ issuer: op.issuer, audience: op.audience, scope: op.scope })
    const data = createTimelineHandler(store, { faults, basePath: accountPath, authenticator: createCloudAuthenticator({ verify }) })
    api = await serveOnLoopback(createCloudApiHandler({ verify, data, accountPath }), {
      ...(options.port === undefined ? {} : { port: options.port }),
      intercept: (req, res) => faults.intercept(req, res),
    })
  } catch (error) {
    await op.close()
    throw error
  }
  const apiUrl = api.url.replace(/\/$/, '')
  return {
    issuer: op.issuer,
    apiUrl,
    serverUrl: `${apiUrl}${accountPath}`,
    clients: op.clients,
    account,
    store,
    faults,
    seed,
    tokenRequests: op.tokenRequests,
    grantErrors: op.grantErrors,
    op,
    api,
    async close() {
      await api.close()
      await op.close()
    },
  }
}
