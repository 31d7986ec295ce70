import { NavLink } from 'react-router';
import { type Admin, can } from '../api/session.ts';
import { type Section, sections } from '../sections.ts';

const groups = ['Content', 'Moderation', 'Support', 'Administration'] as const;

/** The sections this admin's role may use, by group. */
export function Nav({ admin, onNavigate }: { readonly admin: Admin; readonly onNavigate: () => void }) {
  const visible = (section: Section) => section.permission === null || can(admin, section.permission);
  return (
    <nav id="console-nav" aria-label="Sections">
      {groups.map((group) => {
        const items = sections.filter((section) => section.group === group && visible(section));
        if (items.length === 0) return null;
        return (
          <div key={group} className="nav-group">
            <h2>{group}</h2>
            <ul>
              {items.map((section) => (
                <li key={section.path}>
                  <NavLink to={`/${section.path}`} onClick={onNavigate}>
                    {section.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}
