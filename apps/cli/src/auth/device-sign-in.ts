/**
 * `careen login --sso`: the device authorization grant (RFC 8628) through the exchange. The
 * exchange asks the org's provider for a code; the person opens the provider's page in any
 * browser and approves it; meanwhile the CLI asks the exchange every `interval` seconds (longer
 * when told to slow down) until the sign-in is approved, refused, or the code ends.
 */
import { type Exchange } from '@careen/api-client';
import { CliError } from '../cli-errors';
import { ExchangeRefusal } from '../http/exchange-errors';
import { type TokenAnswer } from './stored-login-bearer';

export type DeviceAnswer = Exchange.components['schemas']['SsoDeviceResponse'];

export interface DeviceSignInSteps {
  start(): Promise<DeviceAnswer>;
  /** One ask: the tokens once approved, else the exchange's refusal (pending, slow down, refused). */
  poll(deviceCode: string): Promise<TokenAnswer>;
  /** Tells the person what to open and which code to check. */
  tell(line: string): void;
  wait(ms: number): Promise<void>;
  now(): Date;
}

/** RFC 8628: after slow_down, wait five seconds more each time. */
const SLOW_DOWN_SECONDS = 5;

export async function deviceSignIn(org: string, steps: DeviceSignInSteps): Promise<TokenAnswer> {
  const device = await steps.start();
  const endsAt = steps.now().getTime() + device.expiresIn * 1000;
  steps.tell(
    device.verificationUriComplete
      ? `To sign in to ${org}, open ${device.verificationUriComplete}\n  and check that it shows the code ${device.userCode}`
      : `To sign in to ${org}, open ${device.verificationUri}\n  and enter the code ${device.userCode}`,
  );
  steps.tell(`waiting for the sign-in to be approved (the code ends at ${new Date(endsAt).toISOString()})…`);
  let interval = device.interval;
  for (;;) {
    await steps.wait(interval * 1000);
    try {
      return await steps.poll(device.deviceCode);
    } catch (error) {
      const code = error instanceof ExchangeRefusal ? refusalCode(error) : undefined;
      if (code === 'SLOW_DOWN') interval += SLOW_DOWN_SECONDS;
      else if (code !== 'AUTHORIZATION_PENDING') throw error;
      if (steps.now().getTime() >= endsAt) {
        throw new CliError(
          `the code ${device.userCode} ended before the sign-in was approved: run "careen login --sso" again`,
        );
      }
    }
  }
}

function refusalCode(error: ExchangeRefusal): string | undefined {
  const details = error.body?.details as { code?: unknown } | undefined;
  return typeof details?.code === 'string' ? details.code : undefined;
}
