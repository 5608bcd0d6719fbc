/**
 * Sign-in with an exchange user's org, name and password, or through the org's identity
 * provider (single sign-on), which brings the browser back here to finish.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Identity } from '../api/identity';
import { signIn } from '../api/sign-in';
import { finishSsoSignIn, ssoCallbackOrg, startSsoSignIn } from '../api/sso-sign-in';
import { Field } from '../components/field';
import { useAction } from '../live/use-action';

export function LoginView({
  notice,
  onSignedIn,
}: {
  notice?: string;
  onSignedIn: (identity: Identity) => void;
}) {
  const [returning] = useState(ssoCallbackOrg);
  const [org, setOrg] = useState(returning ?? '');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, problem, run } = useAction();

  // Back from the identity provider: finish the sign-in it approved (or say why not), once.
  const finishing = useRef(false);
  useEffect(() => {
    if (returning === undefined || finishing.current) return;
    finishing.current = true;
    void run(async () => onSignedIn(await finishSsoSignIn()));
  }, [returning, run, onSignedIn]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => onSignedIn(await signIn({ org: org.trim(), username: username.trim(), password })));
  };

  return (
    <main className="login">
      <form onSubmit={(event) => void submit(event)} aria-labelledby="login-title" noValidate>
        <h1 id="login-title">Careen console</h1>
        <p className="muted">
          Sign in with your exchange user, or through your org&apos;s identity provider (single sign-on: the
          org is enough).
        </p>
        {notice && !problem && (
          <div className="notice notice-warn" role="status">
            {notice}
          </div>
        )}
        {problem && (
          <div className="notice notice-error" role="alert">
            {problem.message}
          </div>
        )}
        <Field
          label="Org"
          name="org"
          autoComplete="organization"
          value={org}
          onChange={(event) => setOrg(event.target.value)}
          refusal={problem}
          hint="root for hub admins"
        />
        <Field
          label="User"
          name="username"
          autoComplete="username"
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          refusal={problem}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          refusal={problem}
        />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <button type="button" disabled={busy} onClick={() => void run(() => startSsoSignIn(org.trim()))}>
          Sign in with single sign-on
        </button>
      </form>
    </main>
  );
}
