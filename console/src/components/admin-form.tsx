import { ADMIN_ROLES, type AdminRole } from '../api/admins.ts';
import { Field } from './fields.tsx';

const roleHints: Record<AdminRole, string> = {
  owner: 'Everything, the admins included.',
  author: 'Writes and publishes posts.',
  moderator: 'Handles comments, reports and bans.',
  support: 'Reads CSAT and analytics, resolves complaints, sends notices.',
  auditor: 'Reads everything, changes nothing.',
};

/** A role picker that says what the chosen role may do. */
export function RoleSelect({
  value,
  onChange,
  errors,
}: {
  readonly value: AdminRole;
  readonly onChange: (role: AdminRole) => void;
  readonly errors: readonly string[] | undefined;
}) {
  return (
    <Field label="Role" hint={roleHints[value]} errors={errors}>
      {(ids) => (
        <select
          {...ids}
          value={value}
          onChange={(event) => {
            const role = ADMIN_ROLES.find((candidate) => candidate === event.target.value);
            if (role !== undefined) onChange(role);
          }}
        >
          {ADMIN_ROLES.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export const PASSWORD_HINT = 'At least 15 characters; not a common password, nor the email address.';
