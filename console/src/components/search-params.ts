import { useSearchParams } from 'react-router';

/**
 * A page's choices kept in its address (a channel, a status, a filter), so a list can be shared and the
 * back button undoes a choice. `set` changes some and keeps the others; an empty value removes one.
 */
export function useSearchChoices() {
  const [search, setSearch] = useSearchParams();
  const get = (name: string): string => search.get(name) ?? '';
  const set = (changes: Readonly<Record<string, string>>) => {
    const next = new URLSearchParams(search);
    for (const [name, value] of Object.entries(changes)) {
      if (value === '') next.delete(name);
      else next.set(name, value);
    }
    setSearch(next);
  };
  return { get, set };
}
