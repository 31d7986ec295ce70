import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { channelsForUser } from '../../../queries/channels.ts';
import { userOf } from '../../plugins/auth.ts';
import { problemSchema } from '../../problem.ts';
import { sessionSecurity as security } from './conventions.ts';

const tags = ['channel'];

/** The channels a client can read. */
export const channelsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;

  app.get(
    '/channels',
    {
      schema: {
        operationId: 'listChannels',
        tags,
        security,
        summary: 'Every channel, with how many of its posts the caller has not read',
        response: {
          200: z
            .object({
              items: z.array(
                z.object({
                  id: z.uuid(),
                  title: z.string(),
                  description: z.string().optional(),
                  avatarUrl: z.string().optional(),
                  unread: z.number().int(),
                }),
              ),
            })
            .meta({ id: 'ChannelSummaries' }),
          401: problemSchema,
          429: problemSchema,
        },
      },
    },
    async (request) => ({ items: [...(await channelsForUser(pool, userOf(request)))] }),
  );
};
