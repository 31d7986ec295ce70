import { deviceUpcasters } from './devices.ts';
import { createUpcast } from './upcasting.ts';

/** Every stream family's upcasters: the one `Upcast` both event store adapters are built with. */
export const upcast = createUpcast([...deviceUpcasters]);
