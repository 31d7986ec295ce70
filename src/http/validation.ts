import { validatorCompiler } from 'fastify-type-provider-zod';
import { findTextFault } from '../lib/text-rules.ts';

/**
 * The zod validator every route uses, behind the shared text rule: any string of the part being
 * validated (body, query, params, headers; keys too, at any depth) that is not text is a 400 naming
 * its field, before the route's own schema runs. Schemas then add what each kind of field accepts
 * (src/lib/text-rules.ts); a field a schema forgot, or a free-form one (a record), is still covered.
 */
export const validatorCompilerWithTextRule: typeof validatorCompiler = (route) => {
  const validate = validatorCompiler(route);
  return (data) => {
    const fault = findTextFault(data);
    if (!fault) return validate(data);
    return {
      error: [
        {
          keyword: 'text',
          instancePath: fault.path.map((key) => `/${key}`).join(''),
          schemaPath: '#',
          params: {},
          message: fault.message,
        },
      ],
    };
  };
};
