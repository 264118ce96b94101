import { Type } from 'typebox';
import { Envelope, ok } from '../../http/envelope.js';
import { Nullable } from '../../http/schema-helpers.js';
import type { RoutesPlugin } from '../../http/types.js';

const ContactResponse = Envelope(
  Type.Object({
    contact: Type.Object({
      email: Nullable(
        Type.String({
          description:
            "The operators' address for people outside Redflag (REDFLAG_CONTACT_EMAIL); null when the service has none",
        }),
      ),
    }),
  }),
);

/**
 * Where a person outside the registry writes to its operators: the scam victim whose report was
 * not published, the person wrongly listed whose answer never came, anyone using their data rights.
 * The public pages (/report, /review) read it here, as any client may. No key.
 */
export const contactRoutes: RoutesPlugin<{ email: string | undefined }> = async (app, { email }) => {
  app.get(
    '/api/v1/meta-data/contact',
    {
      schema: {
        tags: ['meta-data'],
        summary: "The operators' contact for people outside Redflag (no key)",
        response: { 200: ContactResponse },
      },
    },
    async () => ok({ contact: { email: email ?? null } }, 'Contact fetched successfully'),
  );
};
