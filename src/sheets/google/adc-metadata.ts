/**
 * The third place of Google's application default credentials: "The attached service account, returned by the
 * metadata server" (a Compute Engine VM, Cloud Run, GKE with Workload Identity). Detection and the token calls
 * are google-auth-library's own (gcp-metadata's detection as `GoogleAuth` runs it, its `Compute` client for the
 * token); this module routes their requests through the transport and says in our words what a refusal means
 * (decisions/0024).
 */
import { Compute, gaxios, gcpMetadata } from 'google-auth-library'
import { HttpError, TimelineSheetsError } from '../../errors.ts'
import { asFetch, createTransport, type Transport } from '../../http/transport.ts'
import { transportFailure } from './api-errors.ts'
import { oauthClient, SHEETS_SCOPE, withoutLibraryRetries, type GoogleSignIn } from './auth.ts'

export interface MetadataServerOptions {
  transport?: Transport
  /** @default [SHEETS_SCOPE] */
  scopes?: readonly string[]
}

const routed = new WeakSet<object>()
const DETECTION_PING = /\/computeMetadata\/v1\/instance$/

/**
 * gcp-metadata sends every request through gaxios' shared instance, not through a client's own transporter: point
 * that instance at the transport (its limits and redirect policy) and turn its retries off, once for each
 * transport a run signs in with. Off Google Cloud gcp-metadata also gives every request 3 s; that stays for the
 * detection ping (how long to wait for a server that may not be there is its call), while the account's own
 * requests get the transport's limits, as on Google Cloud, where gcp-metadata sets none.
 */
function routeThrough(transport: Transport): void {
  gaxios.instance.defaults.fetchImplementation = asFetch(transport)
  if (routed.has(gaxios.instance)) return
  routed.add(gaxios.instance)
  withoutLibraryRetries(gaxios.instance)
  gaxios.instance.interceptors.request.add({
    // gcp-metadata passes no signal of its own: the one there is its timeout's.
    resolved: async (request) =>
      DETECTION_PING.test(new URL(request.url).pathname) ? request : { ...request, timeout: 0, signal: undefined },
  })
}

/**
 * Where gcp-metadata sends its requests, for messages: `GCE_METADATA_HOST` (or `GCE_METADATA_IP`) when set, which
 * gcp-metadata itself reads from `process.env`, else Google's fixed address.
 */
export function metadataServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  const host = env['GCE_METADATA_IP'] || env['GCE_METADATA_HOST'] || '169.254.169.254'
  return /^https?:\/\//.test(host) ? host : `http://${host}`
}

/**
 * Whether a metadata server is there, decided as `GoogleAuth` decides it (a Google Cloud residency seen in the
 * environment or the machine, else gcp-metadata's ping), except that a set `METADATA_SERVER_DETECTION` is
 * gcp-metadata's to apply alone: `none` then means none even on a machine that looks like Google's.
 */
export async function metadataServerAvailable(transport: Transport = createTransport()): Promise<boolean> {
  routeThrough(transport)
  try {
    if (process.env['METADATA_SERVER_DETECTION']) return await gcpMetadata.isAvailable()
    return gcpMetadata.getGCPResidency() || (await gcpMetadata.isAvailable())
  } catch (error) {
    // gcp-metadata refuses a value it does not know with a RangeError; it catches everything else itself.
    if (!(error instanceof RangeError)) throw error
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `METADATA_SERVER_DETECTION is not usable: ${error.message}`, {
      hint: 'Unset METADATA_SERVER_DETECTION, or set it to one of the values the message lists.',
    })
  }
}

/**
 * Signs in as the service account attached to where the tool runs: its e-mail first (so a missing account is
 * said before any spreadsheet is asked for, and the e-mail is the one to share the spreadsheet with), then
 * tokens from the metadata server whenever googleapis needs one.
 */
export async function signInWithMetadataServer(options: MetadataServerOptions = {}): Promise<GoogleSignIn> {
  const transport = options.transport ?? createTransport()
  routeThrough(transport)
  const server = metadataServerUrl()
  let email: string
  try {
    email = String(await gcpMetadata.instance('service-accounts/default/email'))
  } catch (error) {
    throw metadataFailure(error, server, 'the service account e-mail')
  }
  const compute = new Compute({ scopes: [...(options.scopes ?? [SHEETS_SCOPE])] })
  const client = oauthClient(transport)
  const issued: string[] = []
  client.refreshHandler = async () => {
    let token: string | null | undefined
    try {
      ;({ token } = await compute.getAccessToken())
    } catch (error) {
      throw metadataFailure(error, server, `an access token for ${email}`)
    }
    if (!token) {
      throw new TimelineSheetsError('TS_RESPONSE_INVALID', `The metadata server at ${server} answered without an access_token`, {
        hint: 'Check GCE_METADATA_HOST, if it is set: it must name a Google metadata server.',
      })
    }
    issued.push(token)
    return { access_token: token, expiry_date: compute.credentials.expiry_date ?? Date.now() + 300_000 }
  }
  return {
    mode: 'metadata-server',
    client,
    principal: email,
    secrets: () => [...issued, ...(client.credentials.access_token ? [client.credentials.access_token] : [])],
  }
}

/**
 * gcp-metadata: an answer without `Metadata-Flavor: Google` (something else answered at the metadata address). It
 * throws a plain `RangeError` ("incorrect Metadata-Flavor header") with no code, so its text is all there is.
 */
function isNotMetadataServer(error: unknown): boolean {
  return error instanceof RangeError && /Metadata-Flavor/.test(error.message)
}

/** A failed metadata request in our words: what was asked, of which server, and what to do. */
function metadataFailure(error: unknown, server: string, what: string): Error {
  const own = transportFailure(error)
  if (own) return own
  const e = error as { status?: unknown; response?: { status?: unknown; data?: unknown }; message?: unknown }
  const status = typeof e.response?.status === 'number' ? e.response.status : typeof e.status === 'number' ? e.status : undefined
  if (isNotMetadataServer(error)) {
    return new TimelineSheetsError(
      'TS_RESPONSE_INVALID',
      `${server} answered without Metadata-Flavor: Google: it is not a metadata server`,
      {
        hint: 'Check GCE_METADATA_HOST, if it is set, and any proxy between the tool and the metadata server.',
      },
    )
  }
  if (status === 404) {
    return new TimelineSheetsError(
      'TS_AUTH_REQUIRED',
      `The metadata server at ${server} has no service account attached (404 for ${what})`,
      {
        hint: 'Attach a service account to the VM, Cloud Run service or job, or GKE workload the tool runs in, or name a credential file in GOOGLE_APPLICATION_CREDENTIALS.',
      },
    )
  }
  if (status === 429 || (status !== undefined && status >= 500)) {
    return new HttpError(
      {
        status,
        method: 'GET',
        url: server,
        data: e.response?.data,
        code: 'TS_AUTH_FAILED',
        message: `The metadata server at ${server} answered ${status} for ${what}`,
      },
      { hint: 'The metadata server is having trouble; run again later.' },
    )
  }
  if (status !== undefined) {
    return new TimelineSheetsError('TS_AUTH_FAILED', `The metadata server at ${server} refused ${what} (HTTP ${status})`, {
      hint:
        status === 403
          ? 'The endpoint may be turned off for this instance, or the request failed its checks (a proxy in between adds headers it refuses). Check the settings of the service account attached where the tool runs.'
          : 'Check the service account attached where the tool runs.',
    })
  }
  return new TimelineSheetsError('TS_NETWORK', `Cannot reach the metadata server at ${server} for ${what}: ${String(e.message ?? error)}`, {
    hint: 'Run the tool where a metadata server answers (Compute Engine, Cloud Run, GKE), or name a credential file in GOOGLE_APPLICATION_CREDENTIALS.',
  })
}
