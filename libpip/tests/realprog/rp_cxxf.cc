// SPDX-License-Identifier: BSD-2-Clause
// rp_cxxf.cc: a C++ program (iostreams, exceptions, RTTI, a static
// constructor, std::map) that writes to the file named by argv[1]; used by
// test_pip_corpus.sh.
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace {
struct Shape {
    virtual ~Shape() = default;
    virtual double area() const = 0;
};
struct Sq : Shape {
    double s;
    explicit Sq(double v) : s(v) {}
    double area() const override { return s * s; }
};
std::map<std::string, int> registry = {{"one", 1}, {"two", 2}};
} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: rp_cxxf OUTFILE\n";
        return 2;
    }
    std::ofstream out(argv[1]);
    if (!out) {
        std::cerr << argv[1] << ": cannot open\n";
        return 1;
    }
    for (int i = 0; i < 200; i++) {
        try {
            if (i % 3 == 0)
                throw std::runtime_error("boom " + std::to_string(i));
            Sq sq(i);
            const Shape &sh = sq;
            out << i << ' ' << typeid(sh).name() << ' ' << sh.area() << '\n';
        } catch (const std::exception &e) {
            out << "caught " << e.what() << '\n';
        }
    }
    for (const auto &kv : registry)
        out << kv.first << '=' << kv.second << '\n';
    return out.good() ? 0 : 1;
}
