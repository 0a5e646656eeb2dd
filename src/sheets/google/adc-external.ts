/**
 * An `external_account` credential configuration (workload identity federation), one of the files Google's
 * application default credentials take from GOOGLE_APPLICATION_CREDENTIALS. google-auth-library's own clients
 * do the work (reading the subject token where `credential_source` says, the token exchange at `token_url`,
 * service-account impersonation); this module checks the file's shape first, builds the client the library's
 * `ExternalAccountClient.fromJSON` would, keeps its requests on the transport and words its refusals
 * (decisions/0024).
 */
import { AwsClient, IdentityPoolClient, PluggableAuthClient, type BaseExternalAccountClient } from 'google-auth-library'
import { z } from 'zod'
import { HttpError, TimelineSheetsError } from '../../errors.ts'
import { asFetch, createTransport, type Transport } from '../../http/transport.ts'
import { transportFailure } from './api-errors.ts'
import { oauthClient, SHEETS_SCOPE, withoutLibraryRetries, type GoogleSignIn } from './auth.ts'

/** The fields every external-account file has; the library checks the rest of `credential_source`. */
export const externalAccountSchema = z.looseObject({
  type: z.literal('external_account'),
  audience: z.string().min(1),
  subject_token_type: z.string().min(1),
  token_url: z.url(),
  credential_source: z.looseObject({}),
  service_account_impersonation_url: z.url().optional(),
})

export interface ExternalAccountOptions {
  transport?: Transport
  /** @default [SHEETS_SCOPE] */
  scopes?: readonly string[]
  /** Where the file came from, for messages. */
  source: string
}

const REMAKE = 'Create the file again for the workload identity pool provider (`gcloud iam workload-identity-pools create-cred-config`).'

/** Signs in with an external-account file's contents (already parsed as JSON). */
export function signInWithExternalAccount(json: unknown, options: ExternalAccountOptions): GoogleSignIn {
  const parsed = externalAccountSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new TimelineSheetsError(
      'TS_CONFIG_INVALID',
      `The Google credentials file ${options.source} is not usable: field "${issue?.path.join('.') || '(file)'}" ${issue?.message ?? 'is invalid'}`,
      { hint: REMAKE },
    )
  }
  const transport = options.transport ?? createTransport()
  const settings = {
    ...parsed.data,
    scopes: [...(options.scopes ?? [SHEETS_SCOPE])],
    transporterOptions: { fetchImplementation: asFetch(transport) },
  }
  let external: BaseExternalAccountClient
  try {
    // The choice `ExternalAccountClient.fromJSON` makes, without its warning: the file was checked above and is the operator's own.
    const source = parsed.data.credential_source
    external =
      'environment_id' in source
        ? new AwsClient(settings as ConstructorParameters<typeof AwsClient>[0])
        : 'executable' in source
          ? new PluggableAuthClient(settings as ConstructorParameters<typeof PluggableAuthClient>[0])
          : new IdentityPoolClient(settings as ConstructorParameters<typeof IdentityPoolClient>[0])
  } catch (error) {
    throw new TimelineSheetsError(
      'TS_CONFIG_INVALID',
      `The Google credentials file ${options.source} is not usable: ${(error as Error).message}`,
      {
        hint: REMAKE,
      },
    )
  }
  withoutLibraryRetries(external.transporter)
  // The library gives its token-exchange client a gaxios of its own, not the client's transporter: without this the
  // subject token would leave outside the transport's timeouts and redirect policy.
  const sts = (external as unknown as { stsCredential?: { transporter?: unknown } }).stsCredential
  if (sts && 'transporter' in sts) sts.transporter = external.transporter

  const client = oauthClient(transport)
  const issued: string[] = []
  client.refreshHandler = async () => {
    let token: string | null | undefined
    try {
      ;({ token } = await external.getAccessToken())
    } catch (error) {
      throw exchangeFailure(error, parsed.data.token_url, options.source)
    }
    if (!token) {
      throw new TimelineSheetsError(
        'TS_RESPONSE_INVALID',
        `The token exchange at ${parsed.data.token_url} answered without an access_token`,
        {
          hint: REMAKE,
        },
      )
    }
    issued.push(token)
    return { access_token: token, expiry_date: external.credentials.expiry_date ?? Date.now() + 300_000 }
  }
  return {
    mode: 'external-account',
    client,
    principal: external.getServiceAccountEmail() ?? undefined,
    secrets: () => [...issued, ...(client.credentials.access_token ? [client.credentials.access_token] : [])],
  }
}

function exchangeFailure(error: unknown, tokenUrl: string, source: string): Error {
  const own = transportFailure(error)
  if (own) return own
  const e = error as { status?: unknown; response?: { status?: unknown; data?: unknown }; message?: unknown }
  const status = typeof e.response?.status === 'number' ? e.response.status : typeof e.status === 'number' ? e.status : undefined
  const message = typeof e.message === 'string' ? e.message : String(error)
  if (status === 429 || (status !== undefined && status >= 500)) {
    return new HttpError(
      {
        status,
        method: 'POST',
        url: tokenUrl,
        data: e.response?.data,
        code: 'TS_AUTH_FAILED',
        message: `The token exchange at ${tokenUrl} answered ${status}`,
      },
      { hint: 'Google sign-in is having trouble; run again later.' },
    )
  }
  if (status !== undefined) {
    return new TimelineSheetsError('TS_AUTH_FAILED', `The token exchange at ${tokenUrl} refused the credentials of ${source}: ${message}`, {
      hint: `Check that the subject token the file's credential_source gives is current and that the provider (audience) accepts it. ${REMAKE}`,
    })
  }
  return new TimelineSheetsError('TS_AUTH_FAILED', `Cannot sign in with the Google credentials file ${source}: ${message}`, {
    hint: "Check where the file's credential_source takes its subject token from (a file, a URL, a command) and that it gives one.",
  })
}
