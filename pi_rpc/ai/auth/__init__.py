"""Provider credentials: ``auth.json`` (``store``) and the cross-process lock upstream pi puts
around it (``lockfile``, npm ``proper-lockfile``'s protocol)."""
