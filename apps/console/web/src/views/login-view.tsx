/** Sign-in with an exchange user's org, name and password. */
import { useState, type FormEvent } from 'react';
import type { Identity } from '../api/identity';
import { signIn } from '../api/sign-in';
import { Field } from '../components/field';
import { useAction } from '../live/use-action';

export function LoginView({
  notice,
  onSignedIn,
}: {
  notice?: string;
  onSignedIn: (identity: Identity) => void;
}) {
  const [org, setOrg] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, problem, run } = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => onSignedIn(await signIn({ org: org.trim(), username: username.trim(), password })));
  };

  return (
    <main className="login">
      <form onSubmit={(event) => void submit(event)} aria-labelledby="login-title" noValidate>
        <h1 id="login-title">Careen console</h1>
        <p className="muted">Sign in with your exchange user.</p>
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
      </form>
    </main>
  );
}
