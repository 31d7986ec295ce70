import { useEffect } from 'react';

const PRODUCT = 'Support channel console';

/** A page's heading, which is also the tab's title: a screen reader and a tab list both say where you are. */
export function PageHeading({ children }: { readonly children: string }) {
  useEffect(() => {
    document.title = `${children} · ${PRODUCT}`;
    return () => {
      document.title = PRODUCT;
    };
  }, [children]);
  return <h1>{children}</h1>;
}
