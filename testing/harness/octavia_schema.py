"""Builds Octavia's database schema in the SQLite file octavia.conf names, as Octavia's own
functional tests do (its migrations do not run on SQLite: ALTER of constraints).

Usage: python3 octavia_schema.py --config-file octavia.conf
"""
import sys

from oslo_config import cfg

from octavia.common import config
from octavia.common import constants
from octavia.db import api as db_api
from octavia.db import base_models
from octavia.db import models

LOOKUPS = [
    (constants.SUPPORTED_PROVISIONING_STATUSES, models.ProvisioningStatus),
    (constants.SUPPORTED_HEALTH_MONITOR_TYPES, models.HealthMonitorType),
    (constants.SUPPORTED_LB_ALGORITHMS, models.Algorithm),
    (constants.SUPPORTED_PROTOCOLS, models.Protocol),
    (constants.SUPPORTED_OPERATING_STATUSES, models.OperatingStatus),
    (constants.SUPPORTED_SP_TYPES, models.SessionPersistenceType),
    (constants.SUPPORTED_AMPHORA_ROLES, models.AmphoraRoles),
    (constants.SUPPORTED_LB_TOPOLOGIES, models.LBTopology),
    (constants.SUPPORTED_VRRP_AUTH, models.VRRPAuthMethod),
    (constants.SUPPORTED_L7RULE_TYPES, models.L7RuleType),
    (constants.SUPPORTED_L7RULE_COMPARE_TYPES, models.L7RuleCompareType),
    (constants.SUPPORTED_L7POLICY_ACTIONS, models.L7PolicyAction),
    (constants.SUPPORTED_CLIENT_AUTH_MODES, models.ClientAuthenticationMode),
]


def main(argv):
    config.init(argv[1:])
    engine = db_api.get_engine()
    base_models.BASE.metadata.create_all(engine)
    session = db_api.get_session()
    with session.begin():
        for names, model in LOOKUPS:
            for name in names:
                session.add(model(name=name))
        # The placeholders Octavia's migrations add for deleted flavors and zones.
        session.add(models.FlavorProfile(id=constants.NIL_UUID, name="DELETED-PLACEHOLDER",
                                         provider_name=constants.DELETED, flavor_data="{}"))
        session.flush()
        session.add(models.Flavor(id=constants.NIL_UUID, flavor_profile_id=constants.NIL_UUID,
                                  name="DELETED-PLACEHOLDER", enabled=False,
                                  description="Placeholder for DELETED LBs with DELETED flavors"))
        session.add(models.AvailabilityZoneProfile(
            id=constants.NIL_UUID, name="DELETED-PLACEHOLDER", provider_name=constants.DELETED,
            availability_zone_data="{}"))
        session.flush()
        session.add(models.AvailabilityZone(
            availability_zone_profile_id=constants.NIL_UUID, name=constants.NIL_UUID,
            enabled=False, description="Placeholder for DELETED LBs with DELETED availability "
                                       "zones"))
    print(f"schema built in {cfg.CONF.database.connection}")


if __name__ == "__main__":
    main(sys.argv)
