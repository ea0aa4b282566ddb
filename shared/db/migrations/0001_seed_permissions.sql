-- The permission names of the spec, seeded once; groups and users are granted them by id.
INSERT INTO "platform"."permissions" ("codename", "name", "model") VALUES
  ('view_organization', 'Can view organization', 'organization'),
  ('change_organization', 'Can change organization', 'organization'),
  ('delete_organization', 'Can delete organization', 'organization'),
  ('manage_organization', 'Can manage organization', 'organization'),
  ('invite_members', 'Can invite members', 'organization'),
  ('manage_sites', 'Can manage sites', 'organization'),
  ('view_site', 'Can view site', 'site'),
  ('access_site', 'Can access site', 'site'),
  ('manage_site', 'Can manage site', 'site'),
  ('manage_site_users', 'Can manage site users', 'site'),
  ('admin_site', 'Can administer site', 'site'),
  ('view_user', 'Can view user', 'user'),
  ('add_user', 'Can add user', 'user'),
  ('change_user', 'Can change user', 'user'),
  ('delete_user', 'Can delete user', 'user')
ON CONFLICT ("codename") DO NOTHING;
