/**
 * A whole cloud on loopback for the auth tests: the OpenID Provider, and the
 * cloud API origin (profile + the reference Timeline server under /acct-1/)
 * guarded by the JWT authenticator (`startCloudReferenceServer`, without seed data).
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { LoopbackServer } from '../../counterparts/mount.ts'
import { startCloudReferenceServer, type CloudReferenceServerOptions } from '../../counterparts/timeline/cloud-server.ts'
import type { OpenIdProvider } from '../../counterparts/timeline/oidc.ts'
import type { TimelineStore } from '../../counterparts/timeline/store.ts'
import { runCloudLogin } from '../../src/timeline/auth/login.ts'
import type { CloudClientOptions } from '../../src/timeline/auth/oidc.ts'
import { scriptedBrowser } from '../support/browser.ts'

export const ACCOUNT = 'alice@example.com'

export interface TestCloud {
  op: OpenIdProvider
  api: LoopbackServer
  dir: string
  /** The reference server's store behind /acct-1/. */
  store: TimelineStore
  /** Client options for the `post` (default) or `basic` client, with a token file of that name. */
  clientOptions(kind?: 'post' | 'basic', file?: string): CloudClientOptions
  /** Runs a whole login with the scripted browser; returns the options it used. */
  login(kind?: 'post' | 'basic', file?: string): Promise<CloudClientOptions>
  close(): Promise<void>
}

export async function startTestCloud(
  options: Pick<CloudReferenceServerOptions, 'accessTokenTtl' | 'refreshTokenTtl' | 'issuerInCallback' | 'tokenResponseScope'> = {},
): Promise<TestCloud> {
  // An empty store but for the account itself, a content editor.
  const { op, api, store } = await startCloudReferenceServer({ ...options, data: false, account: ACCOUNT, accountPath: '/acct-1/' })
  const dir = await mkdtemp(path.join(tmpdir(), 'ts-cloud-'))
  const cloud: TestCloud = {
    op,
    api,
    dir,
    store,
    clientOptions(kind = 'post', file = `token-${kind}.json`) {
      const registered = op.clients[kind]
      return {
        authority: op.issuer,
        apiUrl: api.url.replace(/\/$/, ''),
        clientId: registered.clientId,
        clientSecret: registered.clientSecret,
        clientAuth: kind,
        tokenFile: path.join(dir, file),
        allowInsecureLoopback: true,
      }
    },
    async login(kind = 'post', file) {
      const options = cloud.clientOptions(kind, file)
      const browser = scriptedBrowser()
      await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open })
      await browser.finished
      return options
    },
    async close() {
      await api.close()
      await op.close()
    },
  }
  return cloud
}
