// SPDX-License-Identifier: BSD-2-Clause
// rp_cxx.cc: an ordinary C++ program (iostream, exceptions, RTTI, static
// constructors, the standard library) run as a PiP task.  Its output must
// equal the output of running it alone.  Tasks beyond PIP_NAMESPACES share
// a libc copy and so its stdout buffer, as threads do: a line written in
// several pieces may interleave with another task's.  Each line is built
// first and written whole (one write to the stream), as programs that print
// from many threads do.
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

namespace {
struct Shape {
    virtual ~Shape() {}
    virtual double area() const = 0;
};
struct Square : Shape {
    double s;
    explicit Square(double v) : s(v) {}
    double area() const override { return s * s; }
};
struct Circle : Shape {
    double r;
    explicit Circle(double v) : r(v) {}
    double area() const override { return 3.0 * r * r; }
};
struct Custom_error : std::runtime_error {
    int code;
    Custom_error(const std::string &m, int c) : std::runtime_error(m), code(c) {}
};

// A static constructor: must have run before main.
struct Registry {
    std::map<std::string, int> m;
    Registry() { m["ctor"] = 7; }
};
Registry registry;
int ctor_value = registry.m["ctor"];

// One line of output, written whole when the statement ends.
struct Line {
    std::ostringstream os;
    template <typename T> Line &operator<<(const T &v)
    {
        os << v;
        return *this;
    }
    ~Line()
    {
        os << '\n';
        std::cout << os.str() << std::flush;
    }
};
} // namespace

int main(int argc, char **argv)
{
    Line() << "static ctor " << ctor_value << " " << registry.m.size();
    std::vector<Shape *> v;
    v.push_back(new Square(2));
    v.push_back(new Circle(1));
    for (Shape *s : v) {
        Line() << "area " << s->area() << " square "
               << (dynamic_cast<Square *>(s) != nullptr) << " typeid "
               << (typeid(*s) == typeid(Circle) ? "Circle" : "other");
        delete s;
    }
    try {
        throw std::runtime_error("std error");
    } catch (const std::exception &e) {
        Line() << "caught " << e.what() << " "
               << (typeid(e) == typeid(std::runtime_error));
    }
    try {
        throw Custom_error("custom", argc);
    } catch (const std::runtime_error &e) {
        const Custom_error *c = dynamic_cast<const Custom_error *>(&e);
        Line() << "caught " << e.what() << " code "
               << (c != nullptr ? c->code : -1);
    }
    try {
        std::vector<int> small(2);
        (void)small.at(5);
    } catch (const std::out_of_range &) {
        Line() << "caught out_of_range";
    }
    std::ostringstream os;
    os << "args";
    for (int i = 1; i < argc; i++)
        os << " " << argv[i];
    Line() << os.str();
    std::cerr << "to cerr" << std::endl;
    return 0;
}
