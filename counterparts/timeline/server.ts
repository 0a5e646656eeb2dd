/**
 * Starts the reference Timeline server on a loopback port with seeded data,
 * for end-to-end runs, the demo and the CLI (`npm run reference-server`).
 */
import { serveOnLoopback, type LoopbackServer } from '../mount.ts'
import type { Authenticator } from './authenticator.ts'
import { createFaultInjector, type FaultInjector, type FaultSettings } from './faults.ts'
import { createTimelineHandler } from './handler.ts'
import type { Route } from './router.ts'
import { seedStore, type SeededUser, type SeedOptions, type SeedResult } from './seed.ts'
import { createTimelineStore, type TimelineStore, type TimelineStoreOptions } from './store.ts'

export interface ReferenceServerOptions extends TimelineStoreOptions {
  /** @default 0 (a free port) */
  port?: number
  /** Seed data; `false` starts empty (no users at all). @default {} (5 users × 14 days) */
  data?: SeedOptions | false
  /** Initial faults; change them later through `faults`. */
  faults?: FaultSettings
  /** Seed of the fault PRNG. @default 7 */
  faultSeed?: number
  /** Builds the authenticator once the store exists. @default the password flow */
  authenticator?: (store: TimelineStore) => Authenticator
  /** Path the API lives under (`/acct-1/` for a cloud serverUrl). @default '/' */
  basePath?: string
  /** Routes tried before the reference ones (`createTimelineHandler`'s `routes`): a test's own answer to one kind of request. */
  routes?: readonly Route[]
}

export interface ReferenceServer {
  /** `http://127.0.0.1:PORT/` plus the base path; the API entry is `${url}api`. */
  readonly url: string
  /** `${url}api`, the entry a client is configured with. */
  readonly apiUrl: string
  readonly store: TimelineStore
  readonly faults: FaultInjector
  /** Who can sign in; empty when started without data. */
  readonly credentials: {
    transfer: SeededUser | undefined
    admin: SeededUser | undefined
    reader: SeededUser | undefined
    users: SeededUser[]
  }
  readonly seed: SeedResult | undefined
  readonly loopback: LoopbackServer
  close(): Promise<void>
}

/** Starts the server; resolve `close()` when done. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const store = createTimelineStore(options)
  const seed = options.data === false ? undefined : seedStore(store, options.data ?? {})
  const faults = createFaultInjector(options.faults ?? {}, { seed: options.faultSeed ?? 7 })
  const basePath = options.basePath ?? '/'
  const handler = createTimelineHandler(store, {
    faults,
    basePath,
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.authenticator ? { authenticator: options.authenticator(store) } : {}),
  })
  const loopback = await serveOnLoopback(handler, {
    ...(options.port === undefined ? {} : { port: options.port }),
    intercept: (req, res) => faults.intercept(req, res),
  })
  const url = `${loopback.url.slice(0, -1)}${basePath}`
  return {
    url,
    apiUrl: `${url}api`,
    store,
    faults,
    credentials: {
      transfer: seed?.transfer,
      admin: seed?.admin,
      reader: seed?.reader,
      users: seed?.users ?? [],
    },
    seed,
    loopback,
    close: () => loopback.close(),
  }
}
