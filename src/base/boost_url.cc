// Boost.URL compiled once (Debian's Boost 1.81 ships no libboost_url): the admin API parses
// request targets with it and the config checks URLs with it; everything that does links
// vigil_base.
#include <boost/url/src.hpp>
