"""vigil's provider driver for OpenStack Octavia: Octavia's API hands load balancer changes to
vigil's admin API, and vigil's health and statistics flow back into Octavia's database."""
