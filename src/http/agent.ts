/**
 * The undici connection pool under the transport, loaded from its own file: undici's index also loads its
 * fetch, WebSocket, cache and mock layers, about 100 ms of every network command's start, where the Agent
 * alone takes about 30 ms (Node's own fetch is what sends; it takes the Agent as its dispatcher).
 * test/http/agent.test.ts checks that this is the class undici exports, so an undici release that moves the
 * file fails the tests, not a user's run.
 */
import { createRequire } from 'node:module'
import type { Agent } from 'undici'

const require = createRequire(import.meta.url)

let agentClass: typeof Agent | undefined

/** undici's `Agent` class, loaded on first use. */
export function undiciAgent(): typeof Agent {
  agentClass ??= require('undici/lib/dispatcher/agent.js') as typeof Agent
  return agentClass
}
