// The one translation unit that compiles Asio, Asio's SSL support and Beast (see
// BOOST_ASIO_SEPARATE_COMPILATION in the top-level CMakeLists.txt): their headers cost about
// ten seconds per file, so every other file only declares what it uses.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
