/**
 * Application default credentials in Google's order: "GOOGLE_APPLICATION_CREDENTIALS environment variable", "A
 * credential file created by using the gcloud auth application-default login command", "The attached service
 * account, returned by the metadata server". The first file found decides: a service-account key (our JWT-bearer
 * request, for its `token_uri`), gcloud's `authorized_user`, or an `external_account` (workload identity
 * federation); with no file, the metadata server. Why this is not `GoogleAuth.getClient()`: decisions/0024.
 */
import { homedir } from 'node:os'
import { z } from 'zod'
import { TimelineSheetsError } from '../../errors.ts'
import { readCredentialFile } from '../../config/credential-file.ts'
import { createTransport } from '../../http/transport.ts'
import {
  GOOGLE_TOKEN_URL,
  invalidKey,
  oauthClient,
  parseServiceAccountKey,
  refreshTokenSignIn,
  signInWithServiceAccount,
  type GoogleSignIn,
  type ServiceAccountOptions,
} from './auth.ts'
import { gcloudCredentialFile, namedCredentialFile } from './adc-file.ts'
import { signInWithExternalAccount } from './adc-external.ts'
import { metadataServerAvailable, metadataServerUrl, signInWithMetadataServer } from './adc-metadata.ts'

const authorizedUserSchema = z.object({
  type: z.literal('authorized_user'),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  refresh_token: z.string().min(1),
})

export interface ApplicationDefaultOptions extends ServiceAccountOptions {
  /** Where the files are looked for. The metadata step reads `process.env` (gcp-metadata does). @default process.env */
  env?: NodeJS.ProcessEnv
  /** Decides gcloud's folder (`%APPDATA%\gcloud` on Windows). @default process.platform */
  platform?: NodeJS.Platform
  /** Home folder when `HOME` is unset. @default os.homedir() */
  home?: string
  /** Token endpoint for `authorized_user` files (tests). @default Google's */
  tokenUrl?: string
}

const WAYS =
  'Sign in one of these ways: a service-account key file in the config (google.auth keyFile), GOOGLE_APPLICATION_CREDENTIALS naming a service-account key, an authorized_user or an external_account (workload identity federation) file, `gcloud auth application-default login --scopes=https://www.googleapis.com/auth/spreadsheets,https://www.googleapis.com/auth/cloud-platform`, running where a service account is attached (Compute Engine, Cloud Run, GKE with Workload Identity), or `timeline-sheets login` for the browser sign-in.'

/** Signs in with the first credentials of Google's order; refuses with every way to sign in when there are none. */
export async function signInWithApplicationDefault(options: ApplicationDefaultOptions = {}): Promise<GoogleSignIn> {
  const env = options.env ?? process.env
  const named = namedCredentialFile(env)
  if (named) {
    const read = await readCredentialFile(named)
    if (read.kind === 'unreadable') {
      throw new TimelineSheetsError(
        'TS_AUTH_REQUIRED',
        `GOOGLE_APPLICATION_CREDENTIALS names ${named}, which cannot be read: ${read.code}`,
        {
          hint: `Point GOOGLE_APPLICATION_CREDENTIALS at a credentials file this user may read, or unset it. ${WAYS}`,
        },
      )
    }
    return fromFile(named, read, options)
  }
  const gcloud = gcloudCredentialFile({ env, platform: options.platform ?? process.platform, home: options.home ?? homedir() })
  if (gcloud) {
    const read = await readCredentialFile(gcloud)
    // No file there is the usual case on a server: the next place is looked at. Any other failure is said.
    if (read.kind !== 'unreadable') return fromFile(gcloud, read, options)
    if (read.code !== 'ENOENT' && read.code !== 'ENOTDIR') {
      throw new TimelineSheetsError('TS_AUTH_REQUIRED', `gcloud's credentials file ${gcloud} cannot be read: ${read.code}`, {
        hint: 'Let this user read the file, or run `gcloud auth application-default login` again as this user.',
      })
    }
  }
  const transport = options.transport ?? createTransport()
  if (await metadataServerAvailable(transport)) {
    return signInWithMetadataServer({ transport, ...(options.scopes ? { scopes: options.scopes } : {}) })
  }
  throw new TimelineSheetsError(
    'TS_AUTH_REQUIRED',
    `No Google credentials found: GOOGLE_APPLICATION_CREDENTIALS is unset, ${gcloud ? `there is no ${gcloud}` : "gcloud's folder is unknown (no APPDATA)"}, and no metadata server answered at ${metadataServerUrl()}`,
    { hint: WAYS },
  )
}

async function fromFile(
  file: string,
  read: Awaited<ReturnType<typeof readCredentialFile>>,
  options: ApplicationDefaultOptions,
): Promise<GoogleSignIn> {
  if (read.kind !== 'json') return invalidKey(file, 'it is not JSON')
  const json = read.json
  const type = (json as { type?: unknown } | null)?.type
  if (type === 'service_account') {
    return signInWithServiceAccount(parseServiceAccountKey(json, file), { ...options, source: options.source ?? file })
  }
  if (type === 'external_account') {
    return signInWithExternalAccount(json, {
      source: file,
      ...(options.transport ? { transport: options.transport } : {}),
      ...(options.scopes ? { scopes: options.scopes } : {}),
    })
  }
  if (type === 'authorized_user') {
    const parsed = authorizedUserSchema.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `The Google credentials file ${file} is not usable: field "${issue?.path.join('.') ?? ''}" ${issue?.message ?? 'is invalid'}`,
        { hint: 'Run `gcloud auth application-default login` again, or use a service-account key.' },
      )
    }
    const client = oauthClient(options.transport, {
      clientId: parsed.data.client_id,
      clientSecret: parsed.data.client_secret,
      endpoints: { oauth2TokenUrl: options.tokenUrl ?? GOOGLE_TOKEN_URL },
    })
    return refreshTokenSignIn('authorized-user', client, parsed.data.refresh_token, parsed.data.client_secret)
  }
  throw new TimelineSheetsError(
    'TS_CONFIG_INVALID',
    `The Google credentials file ${file} has type ${JSON.stringify(type)}, which timeline-sheets cannot use`,
    {
      hint: 'Use a service-account key (type service_account), an authorized_user or an external_account file, or `timeline-sheets login`.',
    },
  )
}
