/** `timeline-sheets login`: the one interactive step, so nightly runs need nobody. */
import { loadConfig } from '../../config/load.ts'
import { TimelineSheetsError } from '../../errors.ts'
import type { GlobalOptions } from '../globals.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { loginJson } from '../json-output.ts'
import { createReporter } from '../reporter.ts'
import { cloudOptions, googleSignIn, openInBrowser } from '../wiring.ts'

export async function runLoginCommand(globals: GlobalOptions, options: { browser: boolean; google?: boolean }): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  const loaded = await loadConfig(globals.config)
  const openBrowser = options.browser
    ? openInBrowser
    : async (url: string) => {
        process.stderr.write(`Open this address in a browser to sign in:\n  ${url}\n`)
      }
  if (options.google) {
    const google = loaded.config.google
    if (!google || google.auth.mode !== 'installed-app') {
      throw new TimelineSheetsError(
        'TS_USAGE',
        'login --google needs "google": { "auth": { "mode": "installed-app", … } } in the config.',
        {
          hint: 'Service accounts and application default credentials need no login.',
        },
      )
    }
    await googleSignIn(loaded, google, process.env, true)
    const tokenFile = loaded.resolvePath(google.auth.tokenFile)
    reporter.result(
      `Signed in to Google; the refresh token is stored in ${tokenFile}.`,
      loginJson({ service: 'google', account: null, tokenFile }, EXIT.success),
    )
    return EXIT.success
  }
  const auth = loaded.config.timeline.auth
  if (auth.mode !== 'cloud') {
    throw new TimelineSheetsError(
      'TS_USAGE',
      `login is for cloud sign-in; this config signs in with "${auth.mode}", which needs no browser.`,
      {
        hint: 'Set the password in the environment variable the config names, and run export directly.',
      },
    )
  }
  const { runCloudLogin } = await import('../../timeline/auth/login.ts')
  const result = await runCloudLogin({ ...cloudOptions(loaded, auth, process.env), callbackUrl: auth.callbackUrl, openBrowser })
  reporter.result(
    `Signed in${result.subject ? ` as ${result.subject}` : ''}. The refresh token is stored in ${result.tokenFile} (readable by you only); nightly runs can now sign in by themselves.`,
    loginJson({ service: 'timeline-cloud', account: result.subject ?? null, tokenFile: result.tokenFile }, EXIT.success),
  )
  return EXIT.success
}
