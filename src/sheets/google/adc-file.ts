/**
 * Where application default credentials look for a file, the first two places of Google's order: the file
 * `GOOGLE_APPLICATION_CREDENTIALS` names, else the one `gcloud auth application-default login` writes into
 * gcloud's configuration folder, which depends on the platform (decisions/0024). Pure: the environment and the
 * platform are arguments, so the Windows place is tested on any machine.
 */
import path from 'node:path'

/** What decides the places: the environment and the platform, `process.env` and `process.platform` in a run. */
export interface AdcPlace {
  env: NodeJS.ProcessEnv
  platform: NodeJS.Platform
  /** The home folder when `HOME` is unset (os.homedir()). */
  home: string
}

/** The file `GOOGLE_APPLICATION_CREDENTIALS` names, when it names one. */
export function namedCredentialFile(env: NodeJS.ProcessEnv): string | undefined {
  return env['GOOGLE_APPLICATION_CREDENTIALS'] || undefined
}

/**
 * The file `gcloud auth application-default login` writes: in gcloud's configuration folder, which
 * `CLOUDSDK_CONFIG` moves; by default `%APPDATA%\gcloud` on Windows and `$HOME/.config/gcloud` elsewhere.
 * Undefined on Windows without `APPDATA`, where there is no such folder to look in.
 */
export function gcloudCredentialFile(place: AdcPlace): string | undefined {
  const paths = place.platform === 'win32' ? path.win32 : path.posix
  const folder =
    place.env['CLOUDSDK_CONFIG'] ||
    (place.platform === 'win32'
      ? place.env['APPDATA'] && paths.join(place.env['APPDATA'], 'gcloud')
      : paths.join(place.env['HOME'] || place.home, '.config', 'gcloud'))
  return folder ? paths.join(folder, 'application_default_credentials.json') : undefined
}
