/**
 * Serves a metadata-server counterpart on a loopback port, for end-to-end runs: the CLI reaches it through
 * `GCE_METADATA_HOST`, which `host` is the value for.
 */
import { serveOnLoopback } from '../mount.ts'
import { createMetadataHandler } from './handler.ts'
import { createMetadataStore, type MetadataStore, type MetadataStoreOptions } from './store.ts'

export interface MetadataServer {
  /** `127.0.0.1:<port>`: the value of `GCE_METADATA_HOST`. */
  host: string
  /** Origin with a trailing slash. */
  url: string
  store: MetadataStore
  close(): Promise<void>
}

/** Starts a metadata server on 127.0.0.1 (a free port unless `port` is given). */
export async function startMetadataServer(options: MetadataStoreOptions & { port?: number }): Promise<MetadataServer> {
  const store = createMetadataStore(options)
  const server = await serveOnLoopback(createMetadataHandler(store), options.port === undefined ? {} : { port: options.port })
  return { host: `127.0.0.1:${server.port}`, url: server.url, store, close: () => server.close() }
}

/**
 * The environment a process needs to reach this server and nothing else: gcp-metadata takes `GCE_METADATA_HOST`
 * (and pings no other address once it is set), and a set `METADATA_SERVER_DETECTION` leaves the BIOS and MAC
 * addresses of the machine the tests run on out of it. `assume-present` (the default) skips the detection ping,
 * which gcp-metadata gives 3 s off Google Cloud, so no run depends on how fast a loaded machine answers it;
 * `ping-only` pings.
 */
export function metadataEnv(host: string, detection: 'assume-present' | 'ping-only' = 'assume-present'): Record<string, string> {
  return { GCE_METADATA_HOST: host, METADATA_SERVER_DETECTION: detection }
}
