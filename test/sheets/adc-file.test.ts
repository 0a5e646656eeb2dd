/**
 * Where application default credentials look for gcloud's file, on each platform, from the environment and the
 * platform given: Windows is tested with its own path rules (path.win32) on any machine.
 */
import { describe, expect, it } from 'vitest'
import { gcloudCredentialFile, namedCredentialFile } from '../../src/sheets/google/adc-file.ts'

const FILE = 'application_default_credentials.json'

describe("gcloud's application default credentials file", () => {
  it('is under %APPDATA%\\gcloud on Windows, with Windows separators, and not under the home folder', () => {
    const place = {
      env: { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming', HOME: 'C:\\Users\\ana' },
      platform: 'win32' as const,
      home: 'C:\\Users\\ana',
    }
    expect(gcloudCredentialFile(place)).toBe(`C:\\Users\\ana\\AppData\\Roaming\\gcloud\\${FILE}`)
  })

  it('is nowhere on Windows without APPDATA: the home folder is not where gcloud writes it there', () => {
    expect(gcloudCredentialFile({ env: { USERPROFILE: 'C:\\Users\\ana' }, platform: 'win32', home: 'C:\\Users\\ana' })).toBeUndefined()
  })

  it('is under $HOME/.config/gcloud on Linux and macOS, or the home folder when HOME is unset', () => {
    expect(gcloudCredentialFile({ env: { HOME: '/home/ana', APPDATA: '/ignored' }, platform: 'linux', home: '/x' })).toBe(
      `/home/ana/.config/gcloud/${FILE}`,
    )
    expect(gcloudCredentialFile({ env: {}, platform: 'darwin', home: '/Users/ana' })).toBe(`/Users/ana/.config/gcloud/${FILE}`)
  })

  it('is in the folder CLOUDSDK_CONFIG names, on every platform, as gcloud writes it there', () => {
    expect(gcloudCredentialFile({ env: { CLOUDSDK_CONFIG: 'D:\\gcloud-config', APPDATA: 'C:\\A' }, platform: 'win32', home: 'C:\\' })).toBe(
      `D:\\gcloud-config\\${FILE}`,
    )
    expect(gcloudCredentialFile({ env: { CLOUDSDK_CONFIG: '/etc/gcloud', HOME: '/home/ana' }, platform: 'linux', home: '/' })).toBe(
      `/etc/gcloud/${FILE}`,
    )
  })
})

describe('GOOGLE_APPLICATION_CREDENTIALS', () => {
  it('names a file when set and not empty', () => {
    expect(namedCredentialFile({ GOOGLE_APPLICATION_CREDENTIALS: 'C:\\keys\\sa.json' })).toBe('C:\\keys\\sa.json')
    expect(namedCredentialFile({ GOOGLE_APPLICATION_CREDENTIALS: '' })).toBeUndefined()
    expect(namedCredentialFile({})).toBeUndefined()
  })
})
