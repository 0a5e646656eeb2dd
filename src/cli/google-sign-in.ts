/** Google sign-in as the config chooses it, and the browser a person signs in with. */
import { secretFromEnv, type LoadedConfig } from '../config/load.ts'
import type { GoogleConfig } from '../config/schema.ts'
import { createTransport, type NetworkSettings } from '../http/transport.ts'
import { requestLimits } from './network.ts'

export async function googleSignIn(
  loaded: LoadedConfig,
  google: GoogleConfig,
  env: NodeJS.ProcessEnv,
  interactive = false,
  network: NetworkSettings = requestLimits(loaded),
) {
  const auth = await import('../sheets/google/auth.ts')
  const { DRIVE_METADATA_READONLY_SCOPE } = await import('../sheets/google/drive-version.ts')
  // Token requests, ours and google-auth-library's, under the same limits and redirect policy as data calls.
  const transport = createTransport(network)
  // The Drive scope only where `sync --watch` is configured: a sign-in asks for no more than it uses.
  const scopes = google.watch ? [auth.SHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] : [auth.SHEETS_SCOPE]
  switch (google.auth.mode) {
    case 'service-account':
      return auth.signInWithServiceAccountFile(loaded.resolvePath(google.auth.keyFile), { transport, scopes })
    case 'installed-app':
      return auth.signInWithInstalledApp({
        clientId: google.auth.clientId,
        clientSecret: secretFromEnv(google.auth.clientSecretEnv, 'the Google OAuth client secret', env),
        tokenFile: loaded.resolvePath(google.auth.tokenFile),
        openBrowser: openInBrowser,
        interactive,
        transport,
        scopes,
      })
    case 'adc':
      return (await import('../sheets/google/adc.ts')).signInWithApplicationDefault({ env, transport, scopes })
    case 'static-token':
      return auth.signInWithStaticToken(secretFromEnv(google.auth.tokenEnv, 'a Google access token', env), transport)
  }
}

/** Opens a URL in the desktop browser; prints it when none can be started. */
export async function openInBrowser(url: string): Promise<void> {
  const { spawn } = await import('node:child_process')
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  process.stderr.write(`Opening the sign-in page. If no browser appears, open this address:\n  ${url}\n`)
  await new Promise<void>((resolve) => {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true })
    child.on('error', () => resolve())
    child.unref()
    resolve()
  })
}
