import { CliError } from '../cli-errors';
import { ExchangeRefusal } from '../http/exchange-errors';
import { deviceSignIn, type DeviceSignInSteps } from './device-sign-in';

const refusal = (code: string, status = 400) =>
  new ExchangeRefusal(status, { statusCode: status, error: 'x', message: code, details: { code } }, code);

/** Steps whose polls answer in turn from `answers`, on a clock moved only by the waits. */
function steps(answers: (Error | 'tokens')[], expiresIn = 600) {
  let clock = 0;
  const waits: number[] = [];
  const told: string[] = [];
  const scripted: DeviceSignInSteps = {
    start: async () => ({
      deviceCode: 'dc',
      userCode: 'WDJB-MJHT',
      verificationUri: 'https://idp/device',
      verificationUriComplete: 'https://idp/device?user_code=WDJB-MJHT',
      expiresIn,
      interval: 5,
    }),
    poll: async () => {
      const answer = answers.shift();
      if (answer === 'tokens') return { accessToken: 'a', expiresIn: 900 };
      throw answer ?? new Error('asked once too often');
    },
    tell: (line) => told.push(line),
    wait: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
    now: () => new Date(clock),
  };
  return { scripted, waits, told };
}

describe('careen login --sso', () => {
  it('shows where to approve, asks every interval until approved, and slows down when told', async () => {
    const { scripted, waits, told } = steps([
      refusal('AUTHORIZATION_PENDING'),
      refusal('SLOW_DOWN'),
      refusal('AUTHORIZATION_PENDING'),
      'tokens',
    ]);
    await expect(deviceSignIn('acme', scripted)).resolves.toMatchObject({ accessToken: 'a' });
    expect(waits).toEqual([5000, 5000, 10_000, 10_000]);
    expect(told[0]).toContain('https://idp/device?user_code=WDJB-MJHT');
    expect(told[0]).toContain('WDJB-MJHT');
  });

  it('stops when the code ends, saying to start again', async () => {
    const { scripted } = steps(
      Array.from({ length: 10 }, () => refusal('AUTHORIZATION_PENDING')),
      12,
    );
    await expect(deviceSignIn('acme', scripted)).rejects.toThrow(
      /ended before the sign-in was approved.*--sso/,
    );
  });

  it("gives the exchange's refusal as it is: a denied code, no role", async () => {
    const { scripted } = steps([refusal('SSO_NO_ROLE', 403)]);
    await expect(deviceSignIn('acme', scripted)).rejects.toBeInstanceOf(ExchangeRefusal);
    const denied = steps([new CliError('the identity provider refused: access_denied')]);
    await expect(deviceSignIn('acme', denied.scripted)).rejects.toThrow('access_denied');
  });
});
